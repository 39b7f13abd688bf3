import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcTransport } from '../../src/transport.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport, type NatsTransportOptions } from '../../transports/nats/index.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { Collector } from '../support/collector.js';
import { until } from '../support/fleet.js';
import { PrometheusMetrics } from '../../src/observability/prometheus-metrics.js';

// The NATS transport while its server is killed and restarted: a server of this file's own.
let server: NatsServerHandle;
const opened: RpcTransport[] = [];
const topic = (): string => `it.${randomUUID().slice(0, 8)}`;
const bytes = (s: string): Uint8Array => Buffer.from(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();

async function open(options: Omit<NatsTransportOptions, 'servers'> = {}): Promise<RpcTransport> {
  const transport = natsTransport({ servers: server.url, ...options });
  await transport.connect();
  opened.push(transport);
  return transport;
}

beforeAll(async () => {
  server = await startNatsServer({ jetstream: true });
}, 60_000);
afterAll(async () => {
  for (const transport of opened) await transport.close();
  await server?.stop();
});

/** The value of one series of a Prometheus counter (0 when it was never incremented). */
async function counterValue(metrics: PrometheusMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value))?.value ?? 0;
}

describe('nats - outage', () => {
  it('nats - a restarted server counts as one reconnect in agent_rpc_transport_reconnects_total', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    await open({ metrics: metrics.forAgent('watcher') });
    const reconnects = (): Promise<number> => counterValue(metrics, 'agent_rpc_transport_reconnects_total', { agent: 'watcher', transport: 'nats' });
    expect(await reconnects()).toBe(0);
    await server.restart();
    await until(async () => (await reconnects()) === 1, 20_000);
  }, 60_000);

  /** Publishes while the server is down; each publish must settle typed, none may hang. */
  async function publishDuringOutage(kill: () => Promise<void>, restart: () => Promise<void>, transport: RpcTransport, t: string) {
    await kill();
    const during = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transport.publish(t, { body: bytes(`during-${i}`), messageId: randomUUID() }).then(() => 'accepted', (e: unknown) => e),
      ),
    );
    await restart();
    for (const outcome of during) if (outcome !== 'accepted') expect(isRpcErrorWithCode(outcome, 'EAGENTRPC_PUBLISH_FAILED')).toBe(true);
    return during.filter((r) => r === 'accepted').length;
  }

  it('nats - core: publishes during an outage settle typed; delivery resumes after restart', async () => {
    const [pub, sub] = [await open(), await open()];
    const t = topic();
    const got = new Collector({ autoAck: true });
    await sub.subscribe(t, got.handler);
    await publishDuringOutage(() => server.kill(), () => server.restart(), pub, t);
    // Core NATS keeps nothing for a subscriber that is still reconnecting: probe until the
    // subscription is back, then traffic flows again.
    for (let i = 0; !got.deliveries.some((d) => text(d.body).startsWith('probe')); i++) {
      await pub.publish(t, { body: bytes(`probe-${i}`) });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(got.deliveries.length).toBeGreaterThan(0);
  }, 60_000);

  it('nats - durable: every publish accepted during an outage is delivered after restart', async () => {
    const durable = { ackWaitMs: 2_000 };
    const [pub, sub] = [await open({ durable }), await open({ durable })];
    const t = topic();
    const got = new Collector({ autoAck: true });
    await sub.subscribe(t, got.handler, { group: 'g' });
    await pub.publish(t, { body: bytes('before'), messageId: randomUUID() });
    await got.waitFor(1);
    const accepted = await publishDuringOutage(() => server.kill(), () => server.restart(), pub, t);
    // Right after a restart JetStream may still be recovering: a publish can fail typed
    // (a caller would retry, as here, with the same messageId).
    const afterId = randomUUID();
    for (;;) {
      const outcome = await pub.publish(t, { body: bytes('after'), messageId: afterId }).then(() => 'accepted', (e: unknown) => e);
      if (outcome === 'accepted') break;
      expect(isRpcErrorWithCode(outcome, 'EAGENTRPC_PUBLISH_FAILED')).toBe(true);
    }
    // At least once: a message may arrive twice (an ack lost in the crash), none may be missing.
    const bodies = (): Set<string> => new Set(got.deliveries.map((d) => text(d.body)));
    await until(() => bodies().has('after') && bodies().size === 2 + accepted, 20_000);
    expect(bodies().size).toBe(2 + accepted);
  }, 60_000);
});

describe('nats - durable (JetStream)', () => {
  const durable = { ackWaitMs: 500, maxDeliver: 3 };

  it('nats - a stored message survives a server restart', async () => {
    const t = topic();
    const publisher = await open({ durable });
    await publisher.publish(t, { body: bytes('kept'), messageId: randomUUID() });
    await server.kill();
    await server.restart();
    const consumer = await open({ durable });
    const got = new Collector({ autoAck: true });
    await consumer.subscribe(t, got.handler, { group: 'g' });
    expect((await got.waitFor(1, 15_000)).map((d) => text(d.body))).toEqual(['kept']);
  }, 60_000);
});
