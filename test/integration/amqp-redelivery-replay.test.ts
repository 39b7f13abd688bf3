import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import type { RpcMetrics } from '../../src/observability/metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import { gate, until } from '../../src/testing/wait.js';
import { amqpTransport } from '../../transports/amqp/index.js';
import { runAmqp } from '../support/amqp-target.js';
import { TcpCutProxy } from '../support/tcp-cut-proxy.js';

const amqp = await runAmqp();
const broker = new URL(amqp.url);
const proxy = await TcpCutProxy.start(broker.hostname, Number(broker.port));
afterAll(() => proxy.stop());

describe('amqp transport - replay protection and broker redelivery', () => {
  it('amqp - a request the broker delivers again after the connection holding it was lost keeps its delivery id: taken as a redelivery and answered by dedupe, not refused as replayed', async () => {
    const key = randomBytes(32);
    const auth = () => hmacAuth({ keys: new Map([['fleet-1', key]]), signingKeyId: 'fleet-1' });
    const id = `worker-${randomUUID().slice(0, 6)}`;
    const peers = new PeerTable([{ id, routes: [{ kind: 'amqp' }] }]);
    const seen = { duplicates: 0, dlq: [] as string[] };
    const metrics: RpcMetrics = {
      duplicateSkipped: () => void seen.duplicates++,
      dlqRecorded: (kind, reason) => void seen.dlq.push(`${kind}/${reason}`),
    };
    // The worker reaches the broker through a proxy that can cut its connection.
    const proxied = new URL(amqp.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const worker = new AgentNode({ id, transports: [amqpTransport({ url: proxied.toString(), prefix: amqp.prefix })], peers, auth: auth(), metrics });
    const caller = new AgentNode({ id: `caller-${id}`, transports: [amqpTransport({ url: amqp.url, prefix: amqp.prefix })], peers, auth: auth() });
    const started = gate();
    const release = gate();
    let runs = 0;
    worker.handle('work', async () => {
      runs++;
      started.open();
      await release.promise;
      return { done: true };
    });
    await worker.start();
    await caller.start();
    try {
      const call = caller.requestAgent({ to: id, capability: 'work', payload: null, timeoutMs: 20_000 });
      await started.promise;
      // The connection drops while the handler runs: the request can no longer be acked on
      // the channel that received it, so the broker delivers it again after the reconnect.
      proxy.cut();
      release.open();
      expect(await call).toMatchObject({ status: 'ok', response: { done: true } });
      await until(() => seen.duplicates + seen.dlq.length > 0, 20_000);
      expect(seen).toEqual({ duplicates: 1, dlq: [] });
      expect(runs).toBe(1);
    } finally {
      await caller.close();
      await worker.close();
    }
  }, 40_000);
});
