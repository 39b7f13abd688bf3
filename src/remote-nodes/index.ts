/** The client side of other nodes' session and /execute APIs: the remote node model, its config and the session client. The node store, the remote-nodes config loader and the remote agent are imported from their own modules. */
export { CredentialCipher } from './credential-cipher.js';
export {
  executeBodySchema,
  firstIssue,
  inlineCredentialAt,
  type ComponentRef,
  type ExecuteBody,
  type ExecuteContext,
} from './execute-request.js';
export type { ExecutionContext } from './remote-execution-context.js';
export { mergedResolver } from './remote-node-resolver.js';
export { DEFAULT_REMOTE_TIMEOUT_MS, type RemoteNode, type RemoteNodeResolver } from './remote-node.js';
export { runRemoteSession, type RemoteSessionRunner } from './remote-session-client.js';
export { unknownNodeError } from './remote-session-errors.js';
export { continuedFlowHeader, CORRELATION_ID_RE, flowOfRequest, sessionFlowSchema, type SessionFlow } from './session-flow.js';
