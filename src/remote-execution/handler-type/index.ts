/** Remote workers as a handler type of agent.yaml (`type: remote-worker`), which also runs workflows' worker steps. */
export { remoteWorkerHandlerType } from './remote-worker-type.js';
