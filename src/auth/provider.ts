import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { AuthDenied } from './reasons.js';

export type AuthVerdict = { readonly ok: true; readonly subject: string | undefined } | AuthDenied;

export interface VerifyContext {
  /**
   * The transport's identity of the broker message (stable across redeliveries): a
   * redelivery of one message is not a replay, the same bytes in a new message are.
   */
  readonly deliveryId: string;
  /**
   * The received bytes after the `auth` member, when the envelope arrived as RFC 8785 text
   * (as this runtime writes it): `{` followed by them is `canonicalizeForSigning(envelope)`,
   * so a signature over the canonical form can be checked on the bytes as received.
   */
  readonly signedTail?: Uint8Array;
}

/**
 * Signs or attaches identity on send and verifies it on receive.
 *
 * Who uses which side: a node attaches with the provider of the peer it sends to (its
 * peer entry, else the node's own). It verifies what a peer sends with that peer's
 * provider when it verifies, else with the node's own provider, which must verify: what
 * to accept is the receiver's decision.
 *
 * `attach` may throw when no credentials can be had (IdP down): the call then fails with
 * `EAGENTRPC_AUTH_UNAVAILABLE`. `verify` must turn every failure into a deny verdict; an
 * exception escaping it is treated as a deny as well.
 */
export interface AuthProvider {
  readonly name: string;
  /** Absent on a provider that only verifies: envelopes then go out without `auth`. */
  attach?(envelope: AgentRpcEnvelope): MaybePromise<AgentRpcEnvelope>;
  /** Absent on a provider that only attaches (an OAuth2 client with no verification settings). */
  verify?(envelope: AgentRpcEnvelope, context: VerifyContext): MaybePromise<AuthVerdict>;
}
