import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import type { AuthProvider } from './provider.js';

/**
 * The envelope with the provider's identity attached. A provider that cannot get
 * credentials (token endpoint down) fails the send with EAGENTRPC_AUTH_UNAVAILABLE.
 */
export function attachAuth(provider: AuthProvider, envelope: AgentRpcEnvelope): MaybePromise<AgentRpcEnvelope> {
  if (provider.attach === undefined) return envelope;
  try {
    const signed = provider.attach(envelope);
    return isPromise(signed) ? signed.catch((error: unknown) => Promise.reject(unavailable(provider, error))) : signed;
  } catch (error) {
    throw unavailable(provider, error);
  }
}

function unavailable(provider: AuthProvider, error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError('EAGENTRPC_AUTH_UNAVAILABLE', `${provider.name}: could not attach credentials: ${message}`, { cause: error });
}
