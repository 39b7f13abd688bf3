/** This node's side of the remote execution protocol: the `/execute` front door (docs/remote-execution.md). */
export { executeFrontDoor } from './execute-front-door.js';
