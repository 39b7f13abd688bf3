import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

type Fault = { readonly method: string; readonly path: RegExp; remaining: number; skip: number; readonly kind: 'drop-response' | 'reset' | { status: number } };

/**
 * A loopback HTTP proxy in front of a real node, for the failures a network makes: a
 * response lost after the node acted on the request, a connection reset, an error status
 * from a gateway. Everything else passes through unchanged; every request is recorded.
 */
export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly faults: Fault[] = [];

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {}

  static async start(targetPort: number): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((req, res) => void proxy!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FaultProxy(server, targetPort);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Matching requests fail this way `times` times, after `skip` of them (not taken by earlier faults) pass. */
  inject(method: string, path: RegExp, kind: Fault['kind'], times = 1, skip = 0): void {
    this.faults.push({ method, path, remaining: times, skip, kind });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    this.requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
    let fault = this.faults.find((f) => f.remaining > 0 && f.method === req.method && f.path.test(path));
    if (fault && fault.skip > 0) {
      fault.skip -= 1;
      fault = undefined;
    } else if (fault) fault.remaining -= 1;
    if (fault?.kind === 'reset') return void req.socket.destroy();
    if (fault && typeof fault.kind === 'object') return void res.writeHead(fault.kind.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'injected failure' }));
    const upstream = request({ host: '127.0.0.1', port: this.targetPort, method: req.method, path, headers: req.headers }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => parts.push(chunk));
      answer.on('end', () => {
        // The node acted on the request; its answer never reaches the client.
        if (fault?.kind === 'drop-response') return void req.socket.destroy();
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
      });
    });
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end(body);
  }
}
