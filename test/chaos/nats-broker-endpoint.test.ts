import { afterAll, describe, expect, it } from 'vitest';
import type { RpcTransport } from '../../src/transport.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';

describe('nats - the broker a transport names', () => {
  const servers: NatsServerHandle[] = [];
  let transport: RpcTransport | undefined;
  afterAll(async () => {
    await transport?.close();
    for (const server of servers) await server.stop();
  }, 60_000);

  it('nats - brokerEndpoint is the server the client is connected to, and follows it to another after a reconnect', async () => {
    servers.push(await startNatsServer(), await startNatsServer());
    transport = natsTransport({ servers: servers.map((server) => server.url) });
    const back = new Promise<void>((resolve) => transport!.onConnectionState?.((state) => state === 'connected' && resolve()));
    await transport.connect();
    // nats.js picks one of the listed servers at random: the transport names the one it reached.
    const first = servers.find((server) => server.port === transport!.brokerEndpoint?.port);
    expect(first, JSON.stringify(transport.brokerEndpoint)).toBeDefined();
    expect(transport.brokerEndpoint).toEqual({ address: '127.0.0.1', port: first!.port });
    const other = servers.find((server) => server !== first)!;
    await first!.kill();
    await back;
    expect(transport.brokerEndpoint).toEqual({ address: '127.0.0.1', port: other.port });
  }, 60_000);
});
