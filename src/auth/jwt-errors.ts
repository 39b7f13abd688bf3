import { errors } from 'jose';
import { RpcError } from '../errors.js';
import type { AuthDenied } from './reasons.js';
import { deny } from './reasons.js';

/** What the key lookup throws when the issuer's keys cannot be fetched. */
export function idpUnreachable(message: string, cause?: unknown): RpcError {
  return new RpcError('EAGENTRPC_IDP_UNREACHABLE', message, cause === undefined ? {} : { cause });
}

/** One reason per jose failure, so every rejection is classified, never an exception. */
export function denyForJwtError(error: unknown): AuthDenied {
  if (error instanceof RpcError && error.code === 'EAGENTRPC_IDP_UNREACHABLE') return deny('idp-unreachable', error.message);
  if (error instanceof errors.JWTExpired) return deny('expired', error.message);
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return deny('wrong-issuer', error.message);
      case 'aud':
        return deny('wrong-audience', error.message);
      case 'nbf':
      case 'iat':
        return deny('not-yet-valid', error.message);
      default:
        return deny('malformed-token', error.message);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return deny('unsupported-alg', error.message);
  if (error instanceof errors.JWSSignatureVerificationFailed) return deny('bad-signature', error.message);
  if (error instanceof errors.JWKSNoMatchingKey) return deny('unknown-key', error.message);
  if (error instanceof errors.JWKSMultipleMatchingKeys) return deny('unknown-key', error.message);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return deny('malformed-token', error.message);
  }
  // A key of the wrong type for the header's alg (an HS256 header against RSA keys) surfaces as TypeError.
  if (error instanceof TypeError) return deny('malformed-token', error.message);
  return deny('verifier-error', error instanceof Error ? error.message : String(error));
}
