import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { systemClock, type Clock } from '../clock.js';
import { denyForJwtError } from './jwt-errors.js';
import { JwksSource } from './jwks-source.js';
import type { AuthVerdict } from './provider.js';
import { deny } from './reasons.js';

/** Asymmetric algorithms only: with a symmetric one, whoever verifies could also mint. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;

// Headers that point at keys chosen by the token's author: we never follow them.
const FORBIDDEN_HEADERS = ['jku', 'jwk', 'x5u', 'x5c'] as const;

export interface JwtVerifyOptions {
  readonly issuer: string;
  /** Expected `aud` (one of them, when the token lists several). */
  readonly audience: string;
  /** Every one of these must be granted (`scope` or `scp` claim). */
  readonly scopes?: readonly string[];
  readonly jwksUri?: string;
  /** Default 300,000 ms. */
  readonly jwksCacheMs?: number;
  /** Tolerance on exp, nbf and iat, in milliseconds. Default 60,000. */
  readonly clockSkewMs?: number;
  readonly clock?: Clock;
}

export class JwtVerifier {
  private readonly keys: JwksSource;
  private readonly scopes: readonly string[];
  private readonly clock: Clock;
  /** In seconds, as JWT times are. */
  private readonly skew: number;

  constructor(private readonly options: JwtVerifyOptions) {
    for (const field of ['issuer', 'audience'] as const) {
      if (typeof options?.[field] !== 'string' || options[field].length === 0) throw new TypeError(`jwt verification: ${field} is required`);
    }
    this.keys = new JwksSource({ issuer: options.issuer, jwksUri: options.jwksUri, cacheMs: options.jwksCacheMs });
    this.scopes = options.scopes ?? [];
    this.clock = options.clock ?? systemClock;
    this.skew = (options.clockSkewMs ?? 60_000) / 1_000;
  }

  async verify(token: string): Promise<AuthVerdict> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch (error) {
      return deny('malformed-token', error instanceof Error ? error.message : 'not a JWT');
    }
    if (typeof header.alg !== 'string') return deny('malformed-token', 'JWT header has no alg');
    if (header.alg.toLowerCase() === 'none') return deny('alg-none', 'unsigned JWT (alg none)');
    if (!(JWT_ALGORITHMS as readonly string[]).includes(header.alg)) return deny('unsupported-alg', `alg ${header.alg} is not allowed`);
    const forbidden = FORBIDDEN_HEADERS.find((name) => name in header);
    if (forbidden !== undefined) return deny('malformed-token', `JWT header carries ${forbidden}; keys come from the issuer's JWKS only`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys.key, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: [...JWT_ALGORITHMS],
        clockTolerance: this.skew,
        currentDate: new Date(this.clock.now()),
      }));
    } catch (error) {
      return denyForJwtError(error);
    }
    // jose checks that iat is a number but not that it is in the past.
    if (typeof payload.iat === 'number' && payload.iat > this.clock.now() / 1000 + this.skew) {
      return deny('not-yet-valid', 'JWT issued in the future (iat)');
    }
    const missing = this.scopes.filter((scope) => !grantedScopes(payload).has(scope));
    if (missing.length > 0) return deny('insufficient-scope', `missing scope ${missing.join(' ')}`);
    const subject = typeof payload.sub === 'string' ? payload.sub : typeof payload.client_id === 'string' ? payload.client_id : undefined;
    return { ok: true, subject };
  }
}

function grantedScopes(payload: JWTPayload): Set<string> {
  const claim = payload.scope ?? payload.scp;
  if (typeof claim === 'string') return new Set(claim.split(' ').filter(Boolean));
  if (Array.isArray(claim)) return new Set(claim.filter((scope): scope is string => typeof scope === 'string'));
  return new Set();
}
