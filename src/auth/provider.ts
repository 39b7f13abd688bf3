import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { TransportIdentity } from '../transport.js';

export type AuthVerdict =
  | { readonly ok: true; readonly subject: string | undefined }
  | { readonly ok: false; readonly reason: string; readonly detail: string };

export interface VerifyContext {
  /** Identity the transport itself established for the delivery, if any (mTLS...). */
  readonly transportIdentity: TransportIdentity | undefined;
}

/**
 * Signs or attaches identity on send and verifies it on receive. `verify` must turn every
 * failure into a deny verdict: an exception escaping it is treated as a deny as well.
 */
export interface AuthProvider {
  readonly name: string;
  attach(envelope: AgentRpcEnvelope): MaybePromise<AgentRpcEnvelope>;
  verify(envelope: AgentRpcEnvelope, context: VerifyContext): MaybePromise<AuthVerdict>;
}
