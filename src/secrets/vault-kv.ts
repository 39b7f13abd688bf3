import { SecretValue } from './secret-value.js';

export interface VaultKvOptions {
  /** Vault address, e.g. https://vault.example.com:8200. Default `VAULT_ADDR`. */
  readonly addr: string;
  readonly token: SecretValue;
  /** Vault Enterprise namespace (`X-Vault-Namespace`). */
  readonly namespace?: string;
  /** Per request. Default 5,000 ms. */
  readonly timeoutMs?: number;
  /** How long a read secret is reused before Vault is asked again. Default 300,000 ms. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

interface Cached {
  readonly data: Readonly<Record<string, unknown>>;
  readonly until: number;
}

/**
 * Reads secrets from a HashiCorp Vault KV version 2 engine over HTTP
 * (`GET /v1/<mount>/data/<path>`, the latest version). Whole secrets are cached for
 * `cacheMs`, so resolving a key ring does not cost a request per message. Errors name the
 * reference and the HTTP status, never the token.
 */
export class VaultKvReader {
  private readonly cache = new Map<string, Cached>();
  private readonly now: () => number;

  constructor(private readonly options: VaultKvOptions) {
    if (typeof options?.addr !== 'string' || !/^https?:\/\//.test(options.addr)) throw new TypeError('vault: addr must be an http(s) URL (VAULT_ADDR)');
    if (!(options.token instanceof SecretValue)) throw new TypeError('vault: token must be a resolved secret (VAULT_TOKEN)');
    this.now = options.now ?? Date.now;
  }

  async read(mount: string, path: string, key: string): Promise<SecretValue> {
    const ref = `vault:${mount}/${path}#${key}`;
    const data = await this.readSecret(mount, path, ref);
    const value = data[key];
    if (typeof value !== 'string') throw new TypeError(`${ref}: the secret has no string field "${key}"`);
    return new SecretValue(value);
  }

  /** The whole secret (every field) as JSON: `vault:mount/path` without `#key`, e.g. a key ring kept as one secret. */
  async readAll(mount: string, path: string): Promise<SecretValue> {
    return new SecretValue(JSON.stringify(await this.readSecret(mount, path, `vault:${mount}/${path}`)));
  }

  private async readSecret(mount: string, path: string, ref: string): Promise<Readonly<Record<string, unknown>>> {
    const cacheKey = `${mount}/${path}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.until > this.now()) return cached.data;
    const url = `${this.options.addr.replace(/\/$/, '')}/v1/${encodeURIComponent(mount)}/data/${path.split('/').map(encodeURIComponent).join('/')}`;
    const headers: Record<string, string> = { 'x-vault-token': this.options.token.reveal() };
    if (this.options.namespace !== undefined) headers['x-vault-namespace'] = this.options.namespace;
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000), redirect: 'error' });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new TypeError(`${ref}: Vault at ${this.options.addr} unreachable: ${reason}`, { cause: error });
    }
    // A body that is not JSON says nothing more than the status does.
    const body = (await response.json().catch(() => ({}))) as { data?: { data?: unknown }; errors?: unknown };
    if (!response.ok) {
      const what = response.status === 404 ? 'no such secret' : response.status === 403 ? 'permission denied' : 'request failed';
      throw new TypeError(`${ref}: ${what} (HTTP ${response.status})`);
    }
    const data = body.data?.data;
    if (typeof data !== 'object' || data === null) throw new TypeError(`${ref}: Vault answered without data (is ${mount} a KV version 2 engine?)`);
    this.cache.set(cacheKey, { data: data as Record<string, unknown>, until: this.now() + (this.options.cacheMs ?? 300_000) });
    return data as Record<string, unknown>;
  }
}
