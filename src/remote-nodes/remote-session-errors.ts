import { RpcError } from '../errors.js';
import type { RemoteNode } from './remote-node.js';
import { errorText, redactUrl, type JsonAnswer, type NetworkError } from './http-json.js';

/**
 * The errors of a remote session, one builder per code. Messages name the node, its URL
 * without userinfo and the session id; they never carry a credential.
 */

/** The error for a node name nobody configured, listing the names there are. */
export function unknownNodeError(name: string, available: readonly string[]): RpcError {
  const known = available.length > 0 ? `available: ${available.join(', ')}` : 'no remote nodes are configured';
  return new RpcError('EAGENTRPC_REMOTE_NODE_UNKNOWN', `unknown remote node "${name}"; ${known}`, { details: { node: name, available: [...available] } });
}

/** The node could not be reached: every attempt ended without an HTTP answer. */
export function unreachableError(node: RemoteNode, sessionId: string, cause: NetworkError | undefined): RpcError {
  const reason = cause?.reason ?? 'no answer';
  return new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `remote node ${node.name} at ${redactUrl(node.apiBaseUrl)} is unreachable: ${reason}`, {
    cause,
    details: { node: node.name, sessionId },
  });
}

/** The session API answered with an error status: `remote API error (HTTP 401): <server's text>`. */
export function apiError(answer: JsonAnswer, node: RemoteNode, sessionId: string): RpcError {
  return new RpcError('EAGENTRPC_REMOTE_API', `remote API error (HTTP ${answer.status}): ${errorText(answer)}`, {
    details: { status: answer.status, node: node.name, sessionId },
  });
}

export function pollFailedError(node: RemoteNode, sessionId: string, failures: number, cause: string): RpcError {
  return new RpcError('EAGENTRPC_REMOTE_POLL_FAILED', `failed to poll session ${sessionId}: ${cause}`, { details: { sessionId, node: node.name, failures } });
}

export interface RemoteFailure {
  readonly status: 'failed' | 'cancelled';
  readonly error?: { code?: string; message?: string };
  readonly responseEnvelope?: string;
}

/**
 * The remote session ended as failed (its own message) or was cancelled on the remote side.
 * A guard refusal keeps its code (EAGENTRPC_GUARD_REJECTED): the flow was refused, whichever
 * node refused it, so a loop across HTTP hops reaches the first caller as a loop over a
 * broker does, however many relaying handlers pass it on.
 */
export function agentFailedError(node: RemoteNode, sessionId: string, failure: RemoteFailure): RpcError {
  const reason = failure.status === 'cancelled' ? 'the remote session was cancelled' : failure.error?.message || 'the remote agent failed';
  const code = failure.status === 'failed' && failure.error?.code === 'EAGENTRPC_GUARD_REJECTED' ? 'EAGENTRPC_GUARD_REJECTED' : 'EAGENTRPC_REMOTE_AGENT_FAILED';
  return new RpcError(code, `${reason} (session ${sessionId} on ${node.name})`, {
    details: {
      sessionId,
      node: node.name,
      remoteStatus: failure.status,
      ...(failure.error?.code ? { remoteCode: failure.error.code } : {}),
      // The http gateway turns a signed error response of the remote agent back into its error.
      ...(failure.responseEnvelope ? { responseEnvelope: failure.responseEnvelope } : {}),
    },
  });
}

export type StopReason = 'timeout' | 'abandoned';

/** The session was given up locally (node timeout or caller abort) and cancelled remotely. */
export function stoppedError(node: RemoteNode, sessionId: string, why: StopReason): RpcError {
  if (why === 'timeout') {
    return new RpcError('EAGENTRPC_REMOTE_TIMEOUT', `remote session ${sessionId} on ${node.name} did not finish within ${node.timeoutMs} ms; cancelled`, {
      details: { sessionId, node: node.name, timeoutMs: node.timeoutMs },
    });
  }
  return new RpcError('EAGENTRPC_ABANDONED', `the caller cancelled remote session ${sessionId} on ${node.name}`, { details: { sessionId, node: node.name, cancelled: true } });
}
