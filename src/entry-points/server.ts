/**
 * `agent-rpc/server`: the HTTP side — API roles, the remote node model, and the client of
 * a node's session API (what the `http` gateway and the `remote_agent` tool use).
 */
export { ROLES, PERMISSIONS, roleCan, type Role, type Permission, type Principal } from '../auth/roles.js';
export { DEFAULT_REMOTE_TIMEOUT_MS, REMOTE_AUTH_TYPES, type RemoteNode, type RemoteNodeResolver, type RemoteAuthType } from '../remote-nodes/remote-node.js';
export {
  runRemoteSession,
  unknownNodeError,
  type RemoteSessionOptions,
  type RemoteSessionRequest,
  type RemoteSessionResult,
  type RemoteSessionRunner,
} from '../remote-nodes/remote-session-client.js';
export { formatRemoteOutput, type RejectedPrompt } from '../remote-nodes/format-remote-output.js';
export { SESSION_API_CALLER, SESSION_HEADER, SESSION_USER_HEADER } from '../sessions/session-envelope.js';
export { A2A_CALLER, A2A_TASK_HEADER, A2A_USER_HEADER } from '../a2a/server/a2a-names.js';
