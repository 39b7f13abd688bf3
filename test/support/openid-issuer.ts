/**
 * A real OpenID provider (`oidc-provider`) on loopback for the auth tests: a
 * client-credentials client gets JWT access tokens for one resource (RFC 8707), signed
 * with a fresh RSA key published on the issuer's JWKS. It can be stopped and started
 * again on the same port to play an IdP outage.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes this client may be granted. */
  readonly scopes: readonly string[];
}

export interface OpenIdIssuerOptions {
  readonly clients: readonly IssuerClient[];
  /** The audience of the tokens: the resource indicator (an absolute URI). */
  readonly resource: string;
  /** Every scope the resource knows. */
  readonly scopes: readonly string[];
  readonly accessTokenTtlSeconds?: number;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly expires_in: number;
  readonly scope?: string;
  readonly token_type: string;
}

export class OpenIdIssuer {
  /** Token endpoint POSTs seen (single-flight tests count them). */
  tokenRequests = 0;
  private server: Server | undefined;
  private handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  private constructor(
    readonly issuer: string,
    readonly port: number,
    readonly resource: string,
    /** The issuer's private signing key, so attack tests can forge with the real key. */
    readonly signingKey: JWK,
  ) {}

  static async start(options: OpenIdIssuerOptions): Promise<OpenIdIssuer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const signingKey = { ...(await exportJWK(privateKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
    const issuer = new OpenIdIssuer(`http://127.0.0.1:${port}`, port, options.resource, signingKey);
    issuer.handler = issuer.createProvider(options, signingKey);
    issuer.attach(server);
    return issuer;
  }

  get tokenEndpoint(): string {
    return `${this.issuer}/token`;
  }

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  /** A client-credentials token request over HTTP, as any OAuth2 client would make it. */
  async mintToken(client: { clientId: string; clientSecret: string }, scopes: readonly string[] = []): Promise<TokenResponse> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: this.resource });
    if (scopes.length > 0) body.set('scope', scopes.join(' '));
    const response = await fetch(this.tokenEndpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
      body,
    });
    const json = (await response.json()) as TokenResponse & { error?: string };
    if (!response.ok) throw new Error(`token request failed: HTTP ${response.status} ${json.error ?? ''}`);
    return json;
  }

  /** Stops answering: connections are refused until `resume()`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async resume(): Promise<void> {
    if (this.server) return;
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.attach(server);
  }

  private attach(server: Server): void {
    server.on('request', (req, res) => {
      if (req.method === 'POST' && req.url?.startsWith('/token')) this.tokenRequests++;
      this.handler!(req, res);
    });
    this.server = server;
  }

  private createProvider(options: OpenIdIssuerOptions, signingKey: JWK): (req: IncomingMessage, res: ServerResponse) => void {
    const ttl = options.accessTokenTtlSeconds ?? 300;
    const scope = options.scopes.join(' ');
    const provider = new Provider(this.issuer, {
      clients: options.clients.map((client) => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: client.scopes.join(' '),
      })),
      jwks: { keys: [signingKey] },
      ttl: { ClientCredentials: ttl },
      scopes: ['openid', ...options.scopes],
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => options.resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (resource !== options.resource) throw new Error(`unknown resource ${resource}`);
            return { scope, audience: options.resource, accessTokenFormat: 'jwt', accessTokenTTL: ttl, jwt: { sign: { alg: 'RS256' } } };
          },
        },
      },
    });
    return provider.callback();
  }
}
