import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from 'nats';
import type { RpcTransport } from '../../src/transport.js';
import { natsTransport } from '../../transports/nats/index.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import { Collector } from '../support/collector.js';
import { gate, until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';
import { PrometheusMetrics } from '../../src/observability/prometheus-metrics.js';

const nats = await runNats();
const opened: RpcTransport[] = [];
const topic = (): string => `it.${randomUUID().slice(0, 8)}`;
const bytes = (s: string): Uint8Array => Buffer.from(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();

async function open(options: Parameters<typeof nats.transport>[0] = {}): Promise<RpcTransport> {
  const transport = await nats.transport(options);
  opened.push(transport);
  return transport;
}

afterAll(async () => {
  for (const transport of opened) await transport.close();
});

describe('nats - core', () => {
  it('nats - subjectPrefix namespaces publishes and subscriptions', async () => {
    const prod = await open({ subjectPrefix: 'prod.' });
    const t = topic();
    const got = new Collector({ autoAck: true });
    await prod.subscribe(t, got.handler);
    const raw = await connect({ servers: nats.url });
    const seen: string[] = [];
    raw.subscribe(`prod.${t}`, { callback: (_e, msg) => seen.push(msg.string()) });
    await raw.flush();
    await prod.publish(t, { body: bytes('namespaced') });
    await got.waitFor(1);
    await raw.flush();
    expect(seen).toEqual(['namespaced']);
    await raw.close();
  });

  it('nats - a queue group spreads messages over its members, each delivered once', async () => {
    const [a, b, c] = [await open(), await open(), await open()];
    const t = topic();
    const first = new Collector({ autoAck: true });
    const second = new Collector({ autoAck: true });
    await a.subscribe(t, first.handler, { group: 'workers' });
    await b.subscribe(t, second.handler, { group: 'workers' });
    for (let i = 0; i < 200; i++) await c.publish(t, { body: bytes(`m${i}`) });
    await until(() => first.deliveries.length + second.deliveries.length >= 200);
    expect(first.deliveries.length).toBeGreaterThan(0);
    expect(second.deliveries.length).toBeGreaterThan(0);
    expect(new Set([...first.deliveries, ...second.deliveries].map((d) => text(d.body))).size).toBe(200);
  });

  it('nats - a missing nats package is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const transport = natsTransport({ servers: nats.url, loadModule: () => Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' })) });
    const error = await transport.connect().catch((e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('nats - bad options throw naming the field', () => {
    expect(() => natsTransport({ servers: [] })).toThrow(/servers/);
    expect(() => natsTransport({ servers: 'nats://x:1', maxInflight: 0 })).toThrow(/maxInflight/);
    expect(() => natsTransport({ servers: 'nats://x:1', durable: { maxDeliver: -1 } })).toThrow(/durable\.maxDeliver/);
  });

  it('nats - a slow consumer past maxPending drops, and each drop is counted in agent_rpc_transport_dropped_total', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const [pub, sub] = [await open(), await open({ maxPending: 1, metrics: metrics.forAgent('slow') })];
    const t = topic();
    const held = new Collector();
    await sub.subscribe(t, held.handler, { maxInflight: 1 });
    // m0 is held by the handler (maxInflight 1) before the rest arrive, so what follows does
    // not depend on how the client batches socket reads: m1 waits (maxPending 1), m2–m4 drop.
    await pub.publish(t, { body: bytes('m0') });
    await until(() => held.deliveries.length === 1);
    for (let i = 1; i < 5; i++) await pub.publish(t, { body: bytes(`m${i}`) });
    await until(async () => (await counterValue(metrics, 'agent_rpc_transport_dropped_total', { agent: 'slow', transport: 'nats', reason: 'slow-consumer' })) === 3);
    expect(held.deliveries.map((d) => text(d.body))).toEqual(['m0']);
  });
});

/** The value of one series of a Prometheus counter (0 when it was never incremented). */
async function counterValue(metrics: PrometheusMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value))?.value ?? 0;
}

describe('nats - durable (JetStream)', () => {
  const durable = { ackWaitMs: 500, maxDeliver: 3 };

  it('nats - the server redelivers a nacked message, and an unacked one after ack_wait', async () => {
    const t = topic();
    const transport = await open({ durable });
    const got = new Collector();
    let first = true;
    await transport.subscribe(t, (d) => {
      got.handler(d);
      if (d.attempt === 1 && first) {
        first = false;
        d.nack();
      } else if (d.attempt === 2) {
        // Neither ack nor nack: JetStream redelivers after ack_wait.
      } else d.ack();
    }, { group: 'g' });
    await transport.publish(t, { body: bytes('job'), messageId: randomUUID() });
    const deliveries = await got.waitFor(3, 15_000);
    expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(new Set(deliveries.map((d) => d.coordinates.deliveryId)).size).toBe(1);
  });

  it('nats - the same messageId published twice is stored once (Nats-Msg-Id)', async () => {
    const t = topic();
    const transport = await open({ durable });
    const id = randomUUID();
    await transport.publish(t, { body: bytes('one'), messageId: id });
    await transport.publish(t, { body: bytes('one again'), messageId: id });
    await transport.publish(t, { body: bytes('two'), messageId: randomUUID() });
    const got = new Collector({ autoAck: true });
    await transport.subscribe(t, got.handler, { group: 'g' });
    const [a, b] = await got.waitFor(2);
    expect([text(a!.body), text(b!.body)]).toEqual(['one', 'two']);
  });

  it('nats - max_deliver caps the attempts; the last attempt still reaches the handler', async () => {
    const t = topic();
    const transport = await open({ durable });
    const got = new Collector();
    await transport.subscribe(t, (d) => {
      got.handler(d);
      d.nack();
    }, { group: 'g' });
    await transport.publish(t, { body: bytes('poison') });
    expect((await got.waitFor(3)).map((d) => d.attempt)).toEqual([1, 2, 3]);
  });

  it('nats - after max_deliver the message is handed over once more, flagged exhausted', async () => {
    const t = topic();
    const transport = await open({ durable: { ackWaitMs: 200, maxDeliver: 2 } });
    const got = new Collector();
    // Never settles: JetStream redelivers after ack_wait until max_deliver, then gives up.
    await transport.subscribe(t, got.handler, { group: 'g' });
    await transport.publish(t, { body: bytes('stuck'), messageId: randomUUID() });
    const deliveries = await got.waitFor(3, 15_000);
    expect(deliveries.map((d) => [d.attempt, d.exhausted ?? false])).toEqual([[1, false], [2, false], [3, true]]);
    expect(text(deliveries[2]!.body)).toBe('stuck');
  });

});

describe('nats - durable inbox end to end', () => {
  it('nats - a request whose handler outlives its claim lease and every redelivery is dead-lettered with max-deliver, the caller told', async () => {
    const durable = { ackWaitMs: 300, maxDeliver: 2 };
    const peers = new PeerTable([{ id: 'slow', routes: [{ kind: 'nats' }] }]);
    // A lease shorter than ack_wait: each redelivery finds the claim lapsed and runs again.
    const slow = new AgentNode({ id: 'slow', transports: [natsTransport({ ...nats.options, durable })], peers, limits: { retryDelayMs: 20 }, idempotency: { leaseMs: 100 } });
    const caller = new AgentNode({ id: 'caller', transports: [natsTransport({ ...nats.options, durable })], peers });
    const release = gate();
    slow.handle('hang', () => release.promise);
    await slow.start();
    await caller.start();
    try {
      const result = await caller.requestAgent({ to: 'slow', capability: 'hang', payload: null, timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_HANDLER_FAILED' } });
      const [record] = await slow.dlq.list();
      expect(record).toMatchObject({ kind: 'handler-failed', reason: 'max-deliver', transport: 'nats' });
    } finally {
      release.open();
      await caller.close();
      await slow.close();
    }
  }, 30_000);

  it('nats - replies on a custom topics.responses get no JetStream stream: the reply topic is ephemeral by intent, not by name', async () => {
    const durable = { ackWaitMs: 2_000 };
    const suffix = randomUUID().slice(0, 8);
    const [workerId, responses] = [`worker-${suffix}`, `custom.replies.${suffix}`];
    const peers = new PeerTable([{ id: workerId, routes: [{ kind: 'nats' }] }]);
    const worker = new AgentNode({ id: workerId, transports: [natsTransport({ servers: nats.url, durable })] });
    const caller = new AgentNode({ id: `caller-${suffix}`, instanceId: 'i1', topics: { responses }, transports: [natsTransport({ servers: nats.url, durable })], peers });
    worker.handle('echo', (input) => input);
    await worker.start();
    await caller.start();
    try {
      expect(await caller.requestAgent({ to: workerId, capability: 'echo', payload: 'hi' })).toMatchObject({ status: 'ok', response: 'hi' });
    } finally {
      await caller.close();
      await worker.close();
    }
    const nc = await connect({ servers: nats.url });
    const jsm = await nc.jetstreamManager();
    const subjects: string[] = [];
    for await (const stream of jsm.streams.list()) subjects.push(...stream.config.subjects);
    await nc.close();
    expect(subjects).toContain(`agents.${workerId}.requests`);
    expect(subjects).not.toContain(`${responses}.i1`);
  }, 30_000);
});
