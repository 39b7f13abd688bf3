/** Code modules as a handler type of agent.yaml: `handlers: {capability: ./path.js}`. */
export { handlersFromConfig, moduleHandlerType } from './module-handlers.js';
