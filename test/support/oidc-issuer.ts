/**
 * A real OpenID provider (`oidc-provider`) in-process on loopback, for the auth tests.
 *
 * Clients use the client-credentials grant and get JWT access tokens (RS256, `typ: at+jwt`)
 * for one resource (RFC 8707), whose identifier is also the `aud` of every token. The
 * issuer's keys (RSA and EC P-256) are fresh per issuer; the private halves are exposed so
 * attack tests can sign with the real key. The issuer can be stopped and started again on
 * the same port to play an IdP outage.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface OidcIssuerClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes this client may be granted; asking for another one of the resource's scopes is `invalid_scope`. */
  readonly scopes: readonly string[];
  /** Registered `token_endpoint_auth_method` (default `client_secret_basic`); `mintToken` uses it. oidc-provider accepts either secret method from any client. */
  readonly authMethod?: ClientAuthMethod;
}

export interface OidcIssuerOptions {
  readonly clients: readonly OidcIssuerClient[];
  /** The resource indicator: an absolute URI without fragment (`agent://reviewer`, `https://svc.example`). It is the token audience, verbatim. */
  readonly resource: string;
  /** Every scope the resource knows. */
  readonly scopes: readonly string[];
  /** Access token lifetime (default 300). */
  readonly accessTokenTtlSeconds?: number;
  /** Port on 127.0.0.1 (default: a free one). */
  readonly port?: number;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly expires_in: number;
  /** Space-separated; absent when no scope was granted. */
  readonly scope?: string;
  readonly token_type: string;
}

export interface MintTokenRequest {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated string or a list. Omitted: the token carries no scope. */
  readonly scope?: string | readonly string[];
  /** Default: none sent, the issuer applies its default resource. */
  readonly resource?: string;
  /** Default: the method the client is registered with, else `client_secret_basic`. */
  readonly authMethod?: ClientAuthMethod;
}

/** A token endpoint answer other than 200, with the OAuth error body. */
export class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; error_description?: string },
  ) {
    super(`token request failed: HTTP ${status} ${body.error ?? ''}`.trimEnd());
    this.name = 'TokenRequestError';
  }
}

export interface OidcIssuer {
  /** `http://127.0.0.1:<port>`, no trailing slash; the `iss` of every token. */
  readonly issuer: string;
  readonly port: number;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
  readonly discoveryUrl: string;
  /** The `aud` of every token: the configured resource. */
  readonly audience: string;
  /** POSTs that reached the token endpoint since start (including refused ones). */
  readonly tokenRequests: number;
  /** Private JWKs the issuer publishes (public halves) on its JWKS: RS256 first, then ES256. */
  readonly privateJwks: { readonly keys: readonly JWK[] };
  /** The RS256 private JWK that signs the access tokens. */
  readonly signingKey: JWK;
  /** A client-credentials token request over HTTP on a fresh connection; throws `TokenRequestError` on a non-200. */
  mintToken(request: MintTokenRequest): Promise<TokenResponse>;
  /** Stops listening and drops open connections: new connections are refused until `start()`. */
  stop(): Promise<void>;
  /** Listens again on the same port (a no-op while listening). */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** oidc-provider warns on stdout/stderr when loaded on Node 20; the tests do not need to hear it. */
let providerModule: Promise<typeof import('oidc-provider')> | undefined;
function loadProvider(): Promise<typeof import('oidc-provider')> {
  providerModule ??= (async () => {
    const warn = console.warn;
    console.warn = () => {};
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return providerModule;
}

/** Storage for the provider's stateful artifacts (JWT access tokens are not stored). */
function mapAdapter(): new (name: string) => object {
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number | undefined }>();
  return class MapAdapter {
    constructor(private readonly name: string) {}
    private key(id: string): string {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      store.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    }
    async find(id: string): Promise<Record<string, unknown> | undefined> {
      const entry = store.get(this.key(id));
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
        store.delete(this.key(id));
        return undefined;
      }
      return entry.payload;
    }
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }
    async findByUid(): Promise<undefined> {
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const entry = store.get(this.key(id));
      if (entry) entry.payload = { ...entry.payload, consumed: Math.floor(Date.now() / 1000) };
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }
    async revokeByGrantId(): Promise<void> {}
  };
}

async function signingKeys(): Promise<[JWK, JWK]> {
  const suffix = randomBytes(4).toString('hex');
  const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const ec = await generateKeyPair('ES256', { extractable: true });
  return [
    { ...(await exportJWK(rsa.privateKey)), kid: `rs256-${suffix}`, alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.privateKey)), kid: `es256-${suffix}`, alg: 'ES256', use: 'sig' },
  ];
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startOidcIssuer(options: OidcIssuerOptions): Promise<OidcIssuer> {
  if (options.clients.length === 0) throw new TypeError('options.clients must name at least one client');
  if (!URL.canParse(options.resource) || options.resource.includes('#')) {
    throw new TypeError('options.resource must be an absolute URI without fragment');
  }
  const ttl = options.accessTokenTtlSeconds ?? 300;
  if (!Number.isInteger(ttl) || ttl <= 0) throw new RangeError('options.accessTokenTtlSeconds must be a positive integer');

  const providerExports = await loadProvider();
  const Provider = providerExports.default;
  // `errors` is not in the type shim; an InvalidTarget makes an unknown resource a 400 invalid_target, not a 500.
  const { InvalidTarget } = (providerExports as unknown as { errors: { InvalidTarget: new (description?: string) => Error } }).errors;
  const keys = await signingKeys();
  let handler: Handler | undefined;
  let tokenRequests = 0;
  let server: Server | undefined;
  let closed = false;

  const attach = (next: Server): void => {
    next.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'POST' && (req.url ?? '').split('?')[0] === '/token') tokenRequests++;
      if (handler) handler(req, res);
      else res.writeHead(503).end();
    });
    server = next;
  };

  // Listen first, so the issuer identifier carries the real port.
  const first = createServer();
  const port = await listen(first, options.port ?? 0);
  attach(first);
  const issuer = `http://127.0.0.1:${port}`;
  const resourceScope = options.scopes.join(' ');
  const allScopes = new Set(['openid', ...options.scopes, ...options.clients.flatMap((client) => client.scopes)]);

  const provider = new Provider(issuer, {
    adapter: mapAdapter(),
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: client.authMethod ?? 'client_secret_basic',
      scope: client.scopes.join(' '),
    })),
    jwks: { keys },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: [...allScopes],
    ttl: { ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== options.resource) throw new InvalidTarget(`unknown resource indicator ${resource}`);
          return {
            scope: resourceScope,
            audience: options.resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: ttl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  handler = provider.callback();

  const tokenEndpoint = `${issuer}/token`;
  const registered = new Map(options.clients.map((client) => [client.clientId, client]));

  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    if (!current) return;
    const closing = new Promise<void>((resolve) => current.close(() => resolve()));
    current.closeAllConnections();
    await closing;
  };
  const start = async (): Promise<void> => {
    if (closed) throw new Error('the issuer was closed');
    if (server) return;
    const next = createServer();
    await listen(next, port);
    attach(next);
  };

  return {
    issuer,
    port,
    tokenEndpoint,
    jwksUri: `${issuer}/jwks`,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    audience: options.resource,
    get tokenRequests() {
      return tokenRequests;
    },
    privateJwks: { keys },
    signingKey: keys[0],
    mintToken: (mint) => {
      const method = mint.authMethod ?? registered.get(mint.clientId)?.authMethod ?? 'client_secret_basic';
      const body = new URLSearchParams({ grant_type: 'client_credentials' });
      const scope = typeof mint.scope === 'string' ? mint.scope : mint.scope?.join(' ');
      if (scope) body.set('scope', scope);
      if (mint.resource !== undefined) body.set('resource', mint.resource);
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
      if (method === 'client_secret_basic') {
        // RFC 6749 section 2.3.1: both parts form-urlencoded before base64.
        const user = `${encodeURIComponent(mint.clientId)}:${encodeURIComponent(mint.clientSecret)}`;
        headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
      } else {
        body.set('client_id', mint.clientId);
        body.set('client_secret', mint.clientSecret);
      }
      return postForm(tokenEndpoint, headers, body.toString());
    },
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    close: async () => {
      closed = true;
      await stop();
    },
  };
}

/** One POST on a fresh connection (no keep-alive pool), so a stopped issuer is ECONNREFUSED. */
function postForm(url: string, headers: Record<string, string>, body: string): Promise<TokenResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          reject(new TokenRequestError(res.statusCode ?? 0, { error: 'invalid_json', error_description: text.slice(0, 200) }));
          return;
        }
        if (res.statusCode === 200) resolve(json as TokenResponse);
        else reject(new TokenRequestError(res.statusCode ?? 0, json as TokenRequestError['body']));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
