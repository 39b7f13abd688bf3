/**
 * Why an envelope's identity was not accepted: exactly one of these per rejection, in the
 * DLQ record (`kind=auth-rejected`), the audit record, the metric and the caller's error.
 */
export const AUTH_REJECT_REASONS = [
  /** The receiver requires auth and the envelope carries none. */
  'missing-auth',
  /** The envelope carries auth of a kind this receiver does not accept. */
  'wrong-kind',
  /** Not a well-formed JWT, or one carrying headers we refuse (jku, jwk, x5u, x5c, crit). */
  'malformed-token',
  /** A JWT with `alg: none`. */
  'alg-none',
  /** A JWT signed with an algorithm outside the allow list (HS256 with a public key...). */
  'unsupported-alg',
  /** `exp` passed, beyond the clock-skew tolerance. */
  'expired',
  /** `nbf` or `iat` in the future, beyond the clock-skew tolerance. */
  'not-yet-valid',
  'wrong-issuer',
  'wrong-audience',
  /** The token lacks one of the required scopes (all are required). */
  'insufficient-scope',
  /** The issuer's keys could not be fetched and no fresh copy is cached. */
  'idp-unreachable',
  /** The signature does not match the content (JWT or HMAC). */
  'bad-signature',
  /** The key id names no key this receiver has. */
  'unknown-key',
  /** HMAC: signed outside the accepted time window. */
  'stale',
  /** HMAC: the same signed envelope was already accepted from a different broker message. */
  'replayed',
  /** The verifier failed in a way it did not classify; treated as a deny (fail closed). */
  'verifier-error',
  /** A gateway (A2A) answered a call it did not carry. */
  'not-the-gateway',
] as const;
export type AuthRejectReason = (typeof AUTH_REJECT_REASONS)[number];

export interface AuthDenied {
  readonly ok: false;
  readonly reason: AuthRejectReason;
  readonly detail: string;
}

export function deny(reason: AuthRejectReason, detail: string): AuthDenied {
  return { ok: false, reason, detail };
}
