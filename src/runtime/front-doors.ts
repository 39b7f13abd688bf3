import type { FrontDoorPlugin } from '../config/index.js';
import { a2aFrontDoor } from '../a2a/server/index.js';
import { flowsFrontDoor } from '../flow-recording/front-door/index.js';
import { remoteNodesFrontDoor } from '../remote-nodes/front-door/index.js';
import { executeFrontDoor } from '../remote-execution/server/index.js';
import { sessionsFrontDoor } from '../sessions/front-door/index.js';

/**
 * The daemon's HTTP surfaces besides /healthz, /readyz and /metrics, one line each. Their
 * order is the order they are opened, wire each agent (the A2A gate wraps the sessions'
 * prompts), add their routes and stop.
 */
export const builtinFrontDoors: readonly FrontDoorPlugin[] = [
  sessionsFrontDoor,
  remoteNodesFrontDoor,
  executeFrontDoor,
  a2aFrontDoor,
  flowsFrontDoor,
];
