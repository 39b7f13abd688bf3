/** The HTTP server and its front doors, for the runtime. The A2A server is imported from its own modules: they bring the A2A SDK. */
export { AGENT_CARD_PATH } from '../a2a/index.js';
export { A2A_PATH_PREFIX, DEFAULT_A2A_TASKS_PER_USER } from './a2a/a2a-names.js';
export { executeRoutes, type ExecuteAgent } from './execute/execute-routes.js';
export { RedisConnections } from './execute/redis-execution-store.js';
export { flowRoutes } from './flows/flow-routes.js';
export { remoteNodeRoutes } from './remote-nodes-routes.js';
export { SessionManager } from './sessions/session-manager.js';
export type { SessionRecord } from './sessions/session-record.js';
export { sessionRoutes } from './sessions/sessions-routes.js';
