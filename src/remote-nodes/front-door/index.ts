/** The remote-node routes as a front door of the daemon, and each agent's remote nodes (its config's merged with its node store). */
export { remoteNodesFrontDoor } from './remote-nodes-front-door.js';
export { remoteNodesOf } from './remote-nodes-of.js';
