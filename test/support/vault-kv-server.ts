/**
 * The read endpoint of a HashiCorp Vault KV version 2 engine on loopback
 * (`GET /v1/<mount>/data/<path>`), answering with Vault's response shapes: the secret
 * under `data.data`, 403 `{"errors":["permission denied"]}` for a wrong token, 404
 * `{"errors":[]}` for a missing path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class VaultKvServer {
  reads = 0;
  private constructor(
    private readonly server: Server,
    readonly addr: string,
  ) {}

  static async start(options: { token: string; mount: string; secrets: Record<string, Record<string, string>> }): Promise<VaultKvServer> {
    let vault!: VaultKvServer;
    const server = createServer((req, res) => {
      vault.reads++;
      const reply = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.headers['x-vault-token'] !== options.token) return reply(403, { errors: ['permission denied'] });
      const prefix = `/v1/${options.mount}/data/`;
      const path = req.method === 'GET' && req.url?.startsWith(prefix) ? decodeURIComponent(req.url.slice(prefix.length)) : undefined;
      const data = path === undefined ? undefined : options.secrets[path];
      if (data === undefined) return reply(404, { errors: [] });
      reply(200, {
        request_id: 'b3f1c2d4-0000-4000-8000-000000000000',
        lease_id: '',
        renewable: false,
        lease_duration: 0,
        data: { data, metadata: { created_time: '2026-11-01T00:00:00Z', deletion_time: '', destroyed: false, version: 1 } },
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    vault = new VaultKvServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return vault;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
