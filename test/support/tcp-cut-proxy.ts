import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of a broker that can cut every connection through it at
 * once, as a network failure does, while the broker and the client process live on. New
 * connections pass again right away (the client's reconnect).
 */
export class TcpCutProxy {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpCutProxy> {
    let proxy: TcpCutProxy | undefined;
    const server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        proxy!.sockets.add(socket);
        socket.on('close', () => proxy!.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpCutProxy(server);
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.sockets.size / 2;
  }

  /** Resets every connection through the proxy. */
  cut(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
