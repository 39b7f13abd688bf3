/** Code modules as a handler type of agent.yaml: `handlers: {capability: ./path.js}` (and `events:`). Docs: docs/config.md. */
export { handlersFromConfig, moduleHandlerType } from './module-handlers.js';
