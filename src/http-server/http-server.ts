import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { DEFAULT_MAX_DEPTH } from '../envelope/index.js';
import { silentLogger, type Logger } from '../logger.js';
import type { ApiResponse, ApiRoute } from './api-route.js';
import type { ApiTokens } from './api-tokens.js';
import { roleCan } from '../auth/index.js';
import { ABORTED, badBodyText, hasBody, INVALID, isJsonType, NOT_UTF8, readJsonBody, TOO_DEEP, TOO_LARGE } from './read-body.js';
import { matchRoute } from './route-match.js';

export interface NodeHttpServer {
  readonly port: number;
  close(): Promise<void>;
}

export interface NodeHttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** `/readyz` answers 200 and the API serves while this is true (false while starting or draining). */
  readonly ready: () => boolean;
  /** Named in `/healthz` and `/readyz` answers. */
  readonly agent: string;
  readonly metrics?: Registry;
  /** The `/api/v1/...` endpoints; every one needs a bearer token from `tokens`. */
  readonly routes?: readonly ApiRoute[];
  readonly tokens?: ApiTokens;
  readonly logger?: Logger;
  /** Largest request body accepted, unless a route has its own. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest JSON nesting of a request body accepted (400 beyond it). Default 64, the envelope's. */
  readonly maxDepth?: number;
  /**
   * Further protocols on the same port (the A2A binding, the flow pages), asked in order
   * before the API: each answers the requests it owns and returns true, or returns false.
   * A front door does its own authentication.
   */
  readonly frontDoors?: readonly FrontDoor[];
}

/** Serves the requests it owns (true), leaves the others untouched (false). */
export type FrontDoor = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/**
 * The node's one HTTP server: `/healthz` (liveness), `/readyz` (200 while serving, 503
 * while starting or draining, so a load balancer stops sending work before shutdown),
 * `/metrics` (Prometheus) and the token-protected `/api/v1` endpoints (remote sessions,
 * remote nodes).
 */
export async function startNodeHttpServer(options: NodeHttpServerOptions): Promise<NodeHttpServer> {
  const logger = options.logger ?? silentLogger;
  const server: Server = createServer((req, res) => {
    handle(req, res, options).catch((error: unknown) => {
      logger.error({ err: error, method: req.method, path: req.url }, 'HTTP request failed');
      if (!res.headersSent) send(res, { status: 500, body: { error: 'internal error' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: NodeHttpServerOptions): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const method = req.method ?? 'GET';
  for (const door of options.frontDoors ?? []) if (await door(req, res)) return;
  // The remote execution protocol's endpoints sit at the root, as its clients expect them.
  const isApi = path.startsWith('/api/') || path === '/execute' || path.startsWith('/execute/');
  if (!isApi) return serveOperational(res, method, path, options);

  const principal = options.tokens?.authenticate(req.headers.authorization);
  if (!principal) return send(res, { status: 401, body: { error: 'unauthorized: a valid bearer token is required' } });
  if (!options.ready()) return send(res, { status: 503, body: { error: 'service unavailable: the node is starting or shutting down' } });
  const matched = matchRoute(options.routes ?? [], method, path);
  if (!matched) return send(res, { status: 404, body: { error: 'not found' } });
  if ('allowed' in matched) return send(res, { status: 405, body: { error: 'method not allowed' } }, { allow: matched.allowed.join(', ') });
  const { route, params } = matched;
  if (!roleCan(principal.role, route.permission)) {
    return send(res, { status: 403, body: { error: `forbidden: role ${principal.role} lacks ${route.permission} permission` } });
  }
  // Every body is JSON: another type is refused before a byte of it is read.
  if (hasBody(req) && !isJsonType(req.headers['content-type'])) {
    return send(res, { status: 415, body: { error: 'unsupported media type: the body must be application/json' } });
  }
  const maxBytes = route.maxBodyBytes ?? options.maxBodyBytes ?? 1024 * 1024;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const body = await readJsonBody(req, maxBytes, maxDepth);
  if (body === ABORTED) return;
  if (body === TOO_LARGE) return send(res, { status: 413, body: { error: `payload too large: the body must be at most ${maxBytes} bytes` } });
  if (body === INVALID || body === NOT_UTF8 || body === TOO_DEEP) return send(res, { status: 400, body: { error: badBodyText(body, maxDepth) } });
  send(res, await route.handle({ method, path, params, body, principal }));
}

function serveOperational(res: ServerResponse, method: string, path: string, options: NodeHttpServerOptions): void {
  if (method !== 'GET') return send(res, { status: 405, body: { error: 'method not allowed' } });
  if (path === '/healthz') return send(res, { status: 200, body: { status: 'ok', agent: options.agent } });
  if (path === '/readyz') {
    return options.ready() ? send(res, { status: 200, body: { status: 'ready', agent: options.agent } }) : send(res, { status: 503, body: { status: 'not ready', agent: options.agent } });
  }
  if (path === '/metrics' && options.metrics) {
    const registry = options.metrics;
    void registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => send(res, { status: 500, body: { error: 'metrics unavailable' } }),
    );
    return;
  }
  send(res, { status: 404, body: { error: 'not found' } });
}

function send(res: ServerResponse, response: ApiResponse, headers: Record<string, string> = {}): void {
  if (response.status === 204) {
    res.writeHead(204, headers).end();
    return;
  }
  res.writeHead(response.status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(response.body));
}
