/** The session API's library: sessions of remote callers, their records and routes, and the approval prompts they answer. Its front door is `front-door/`. Docs: docs/sessions.md. */
export { replyText } from './reply-text.js';
export { sessionConfigSchema } from './session-config.js';
export { SESSION_API_CALLER, SESSION_HEADER, SESSION_USER_HEADER } from './session-envelope.js';
export { SessionManager } from './session-manager.js';
export type { SessionRecord } from './session-record.js';
export { sessionRoutes } from './sessions-routes.js';
