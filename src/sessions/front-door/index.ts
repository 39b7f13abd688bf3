/** The session API as a front door of the daemon. */
export { sessionsFrontDoor } from './sessions-front-door.js';
