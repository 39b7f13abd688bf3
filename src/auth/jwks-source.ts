import { createRemoteJWKSet, errors, type JWSHeaderParameters, type FlattenedJWSInput, type CryptoKey } from 'jose';
import { idpUnreachable } from './jwt-errors.js';

export interface JwksSourceOptions {
  readonly issuer: string;
  /** Pinned key set URL; without it, `jwks_uri` from the issuer's discovery document. */
  readonly jwksUri?: string;
  /** How long fetched keys are trusted without refetching. Default 300,000 ms. */
  readonly cacheMs?: number;
  /** Per fetch. Default 5,000 ms. */
  readonly timeoutMs?: number;
}

type KeyLookup = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/**
 * The issuer's signing keys, fetched from its JWKS and cached. Failing to fetch (issuer
 * down, discovery broken) while no fresh copy is cached is EAGENTRPC_IDP_UNREACHABLE; a
 * key id that is not in a freshly fetched set stays jose's JWKSNoMatchingKey.
 */
export class JwksSource {
  private remote: ReturnType<typeof createRemoteJWKSet> | undefined;
  private discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  private readonly cacheMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: JwksSourceOptions) {
    this.cacheMs = options.cacheMs ?? 300_000;
    this.timeoutMs = options.timeoutMs ?? 5000;
    if (options.jwksUri !== undefined) this.remote = this.createSet(options.jwksUri);
  }

  readonly key: KeyLookup = async (header, token) => {
    const remote = this.remote ?? (await this.discover());
    try {
      return await remote(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw idpUnreachable(`could not fetch the signing keys of ${this.options.issuer}: ${describe(error)}`, error);
    }
  };

  private createSet(uri: string): ReturnType<typeof createRemoteJWKSet> {
    return createRemoteJWKSet(new URL(uri), { cacheMaxAge: this.cacheMs, timeoutDuration: this.timeoutMs, cooldownDuration: 30_000 });
  }

  /** Reads `jwks_uri` from the discovery document once; a failure is retried on the next lookup. */
  private discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.discovering ??= this.fetchDiscovery().then(
      (uri) => (this.remote = this.createSet(uri)),
      (error: unknown) => {
        this.discovering = undefined;
        throw error;
      },
    );
    return this.discovering;
  }

  private async fetchDiscovery(): Promise<string> {
    const url = `${this.options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error' });
    } catch (error) {
      throw idpUnreachable(`could not read ${url}: ${describe(error)}`, error);
    }
    if (!response.ok) throw idpUnreachable(`could not read ${url}: HTTP ${response.status}`);
    try {
      document = (await response.json()) as typeof document;
    } catch (error) {
      throw idpUnreachable(`could not read ${url}: ${describe(error)}`, error);
    }
    // OIDC Discovery 4.3: the document must name the issuer it was fetched for.
    if (document.issuer !== this.options.issuer) {
      throw idpUnreachable(`${url} names issuer ${JSON.stringify(document.issuer)}, expected ${this.options.issuer}`);
    }
    if (typeof document.jwks_uri !== 'string') throw idpUnreachable(`${url} has no jwks_uri`);
    return document.jwks_uri;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
