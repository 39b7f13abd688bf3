import { RpcError } from '../errors.js';
import { systemClock, type Clock } from '../clock.js';
import { revealSecret, type SecretInput } from './secret-input.js';

export interface ClientCredentialsOptions {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: SecretInput;
  readonly scopes?: readonly string[];
  /** RFC 8707 resource indicator: the audience the token is for. */
  readonly resource?: string;
  /** A token is replaced this long before it expires. Default 30,000 ms. */
  readonly refreshBeforeMs?: number;
  /** Per token request. Default 10,000 ms. */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
}

interface CachedToken {
  readonly token: string;
  readonly refreshAt: number;
}

/**
 * Mints access tokens with `grant_type=client_credentials` and caches each until
 * `expires_in − refreshBeforeMs`. While a token is being fetched, every caller waits for
 * that one request (single flight), so a burst of calls on a cold cache asks the IdP once.
 */
export class ClientCredentialsTokens {
  private cached: CachedToken | undefined;
  private inflight: Promise<string> | undefined;
  private readonly clock: Clock;

  constructor(private readonly options: ClientCredentialsOptions) {
    for (const field of ['tokenEndpoint', 'clientId'] as const) {
      if (typeof options?.[field] !== 'string' || options[field].length === 0) throw new TypeError(`oauth2-client: ${field} is required`);
    }
    if (options.clientSecret === undefined) throw new TypeError('oauth2-client: clientSecret is required');
    new URL(options.tokenEndpoint);
    this.clock = options.clock ?? systemClock;
  }

  token(): Promise<string> {
    const cached = this.cached;
    if (cached !== undefined && this.clock.now() < cached.refreshAt) return Promise.resolve(cached.token);
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchToken(): Promise<string> {
    const { tokenEndpoint, clientId, scopes, resource } = this.options;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes !== undefined && scopes.length > 0) body.set('scope', scopes.join(' '));
    if (resource !== undefined) body.set('resource', resource);
    // RFC 6749 2.3.1: id and secret are form-urlencoded before Basic encoding.
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(revealSecret(this.options.clientSecret))}`).toString('base64');
    const startedAt = this.clock.now();
    let response: Response;
    try {
      response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw unavailable(`token endpoint ${tokenEndpoint} unreachable: ${error instanceof Error ? error.message : String(error)}`, error);
    }
    // A body that is not JSON (a proxy's error page) says nothing more than the status does.
    const json = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!response.ok || typeof json.access_token !== 'string') {
      const code = typeof json.error === 'string' ? ` (${json.error})` : '';
      throw unavailable(`token endpoint ${tokenEndpoint} refused client ${clientId}: HTTP ${response.status}${code}`);
    }
    const lifetimeMs = typeof json.expires_in === 'number' ? json.expires_in * 1000 : 0;
    this.cached = { token: json.access_token, refreshAt: startedAt + lifetimeMs - (this.options.refreshBeforeMs ?? 30_000) };
    return json.access_token;
  }
}

function unavailable(message: string, cause?: unknown): RpcError {
  return new RpcError('EAGENTRPC_AUTH_UNAVAILABLE', message, { cause });
}
