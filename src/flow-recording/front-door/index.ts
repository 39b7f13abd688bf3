/** The flow pages as a front door of the daemon. */
export { DaemonFlows } from './daemon-flows.js';
export { flowsFrontDoor } from './flows-front-door.js';
