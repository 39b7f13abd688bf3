import { RpcError } from '../../errors.js';

/**
 * What went wrong calling an A2A peer, as the caller's typed error: our own errors (a
 * failed task, a bad card, a missing package) as they are; the SDK's protocol errors
 * (JSON-RPC or HTTP+JSON error answers) as EAGENTRPC_PEER_FAILED; a peer that could not
 * be reached (fetch failed) as EAGENTRPC_REMOTE_UNREACHABLE.
 */
export function peerError(url: string, error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isUnreachable(error)) {
    return new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `A2A peer ${url} could not be reached: ${causeText(error)}`, { cause: error, details: { url } });
  }
  return new RpcError('EAGENTRPC_PEER_FAILED', `A2A peer ${url} answered with an error: ${message}`, { cause: error, details: { url } });
}

function causeText(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

/** fetch's own failure (connection refused, DNS, TLS): the peer was never reached. */
export function isUnreachable(error: unknown): error is TypeError {
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}
