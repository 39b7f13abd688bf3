import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `/metrics`: Prometheus text format.
 * `/healthz`: the process answers (liveness). `/readyz`: 200 while the agent consumes,
 * 503 while it starts or drains — so a load balancer or Kubernetes stops sending work
 * before shutdown begins.
 */
export async function startHealthServer(options: { host: string; port: number; ready: () => boolean; agent: string; metrics?: Registry }): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = req.url?.split('?')[0];
    if (req.method !== 'GET') return reply(405, { error: 'method not allowed' });
    if (path === '/healthz') return reply(200, { status: 'ok', agent: options.agent });
    if (path === '/metrics' && options.metrics) {
      const registry = options.metrics;
      void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => reply(500, { error: 'metrics unavailable' }),
      );
      return;
    }
    if (path === '/readyz') return options.ready() ? reply(200, { status: 'ready', agent: options.agent }) : reply(503, { status: 'not ready', agent: options.agent });
    reply(404, { error: 'not found' });
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
