/**
 * This node's A2A server as a front door of the daemon (docs/a2a.md), and the names its
 * callers read. The server itself (`a2a-server.ts`, `task-executor.ts`, `task-file-store.ts`)
 * is imported on its own: it brings the A2A SDK, an optional package the front door loads
 * when it opens.
 */
export { a2aFrontDoor } from './a2a-front-door.js';
export { A2A_CALLER, A2A_PATH_PREFIX, A2A_TASK_HEADER, A2A_USER_HEADER, DEFAULT_A2A_TASKS_PER_USER } from './a2a-names.js';
export { AGENT_CARD_PATH } from '../index.js';
