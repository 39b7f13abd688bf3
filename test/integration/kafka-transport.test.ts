import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import type { RpcTransport } from '../../src/transport.js';
import { kafkaTransport } from '../../transports/kafka/index.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { Collector } from '../support/collector.js';
import { runKafka } from '../support/kafka-target.js';

const kafka = await runKafka();
const opened: RpcTransport[] = [];
const topic = (): string => `it.${randomUUID().slice(0, 8)}`;
const bytes = (s: string): Uint8Array => Buffer.from(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();

async function open(): Promise<RpcTransport> {
  const transport = await kafka.transport({ clientId: 'kafka-it' });
  opened.push(transport);
  return transport;
}

afterAll(async () => {
  for (const transport of opened) await transport.close();
}, 60_000);

describe('kafka - at-least-once', () => {
  it('kafka - a message received but not acked is delivered again to the next member of the group', async () => {
    const t = topic();
    const first = await open();
    const unacked = new Collector();
    const sub = await first.subscribe(t, unacked.handler, { group: 'g' });
    await first.publish(t, { body: bytes('must not be lost'), key: 'k' });
    await unacked.waitFor(1);
    await sub.close();
    const second = await open();
    const again = new Collector({ autoAck: true });
    await second.subscribe(t, again.handler, { group: 'g' });
    expect((await again.waitFor(1, 30_000)).map((d) => text(d.body))).toEqual(['must not be lost']);
  }, 60_000);

  it('kafka - acked messages are committed: a restarted member of the group does not see them again', async () => {
    const t = topic();
    const first = await open();
    const acked = new Collector({ autoAck: true });
    const sub = await first.subscribe(t, acked.handler, { group: 'g' });
    for (const m of ['one', 'two']) await first.publish(t, { body: bytes(m), key: m });
    await acked.waitFor(2);
    await sub.close();
    await first.publish(t, { body: bytes('three'), key: 'three' });
    const second = await open();
    const later = new Collector({ autoAck: true });
    await second.subscribe(t, later.handler, { group: 'g' });
    expect((await later.waitFor(1, 30_000)).map((d) => text(d.body))).toEqual(['three']);
  }, 60_000);

  it('kafka - a nacked message waits for its redelivery while later messages of the partition flow', async () => {
    const t = topic();
    const transport = await open();
    const got = new Collector();
    await transport.subscribe(t, (d) => {
      got.handler(d);
      if (text(d.body) === 'slow' && d.attempt === 1) d.nack({ delayMs: 300 });
      else d.ack();
    }, { group: 'g' });
    await transport.publish(t, { body: bytes('slow'), key: 'same' });
    for (let i = 0; i < 5; i++) await transport.publish(t, { body: bytes(`next-${i}`), key: 'same' });
    const order = (await got.waitFor(7)).map((d) => `${text(d.body)}#${d.attempt}`);
    expect(order[0]).toBe('slow#1');
    expect(order.slice(1, 6)).toEqual(['next-0#1', 'next-1#1', 'next-2#1', 'next-3#1', 'next-4#1']);
    expect(order[6]).toBe('slow#2');
  });
});

describe('kafka - fan-out groups', () => {
  it('kafka - a fan-out subscriber has its start committed when subscribe resolves, so a rejoin goes on from there; its group goes with it', async () => {
    const t = topic();
    const publisher = await open();
    await publisher.publish(t, { body: bytes('before'), key: 'k' });
    const subscriber = await open();
    const sub = await subscriber.subscribe(t, new Collector({ autoAck: true }).handler);
    const admin = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const groupsOf = async (): Promise<string[]> => (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(`fanout.${t}.`));
      const [groupId] = await groupsOf();
      expect(groupId).toBeDefined();
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(t), admin.fetchOffsets({ groupId: groupId as string, topics: [t] })]);
      const byPartition = (list: Array<{ partition: number; offset: string }>) => Object.fromEntries(list.map((p) => [p.partition, p.offset]));
      expect(byPartition(committed?.partitions ?? [])).toEqual(byPartition(ends.map(({ partition, high }) => ({ partition, offset: high }))));
      await sub.close();
      expect(await groupsOf()).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  }, 60_000);
});

describe('kafka - topics and options', () => {
  it('kafka - topics are created on demand with the configured partitions; ephemeral (reply) topics get one', async () => {
    const transport = kafkaTransport({ brokers: kafka.brokers, partitions: 4 });
    opened.push(transport);
    const requests = `${topic()}.requests`;
    const replies = `${topic()}.responses.instance-1`;
    await transport.subscribe(requests, new Collector({ autoAck: true }).handler, { group: 'g' });
    await transport.publish(replies, { body: bytes('x'), ephemeral: true });
    const admin = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const metadata = await admin.fetchTopicMetadata({ topics: [requests, replies] });
    await admin.disconnect();
    const partitions = Object.fromEntries(metadata.topics.map((m) => [m.name, m.partitions.length]));
    expect(partitions).toEqual({ [requests]: 4, [replies]: 1 });
  });

  it('kafka - replies on a custom topics.responses get one partition: the reply topic is ephemeral by intent, not by name', async () => {
    const suffix = randomUUID().slice(0, 8);
    const [workerId, responses] = [`worker-${suffix}`, `custom.replies.${suffix}`];
    const worker = new AgentNode({ id: workerId, transports: [kafkaTransport({ brokers: kafka.brokers })] });
    const caller = new AgentNode({
      id: `caller-${suffix}`,
      instanceId: 'i1',
      topics: { responses },
      transports: [kafkaTransport({ brokers: kafka.brokers, partitions: 3 })],
      peers: [{ id: workerId, routes: [{ kind: 'kafka' }] }],
    });
    worker.handle('echo', (input) => input);
    await worker.start();
    await caller.start();
    try {
      expect(await caller.requestAgent({ to: workerId, capability: 'echo', payload: 'hi', timeoutMs: 30_000 })).toMatchObject({ status: 'ok', response: 'hi' });
    } finally {
      await caller.close();
      await worker.close();
    }
    const admin = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const metadata = await admin.fetchTopicMetadata({ topics: [`${responses}.i1`, `agents.${workerId}.requests`] });
    await admin.disconnect();
    const partitions = Object.fromEntries(metadata.topics.map((m) => [m.name, m.partitions.length]));
    expect(partitions).toEqual({ [`${responses}.i1`]: 1, [`agents.${workerId}.requests`]: 3 });
  }, 60_000);

  it('kafka - a missing kafkajs package is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const transport = kafkaTransport({ brokers: kafka.brokers, loadModule: () => Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' })) });
    expect(isRpcErrorWithCode(await transport.connect().catch((e: unknown) => e), 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('kafka - bad options throw naming the field', () => {
    expect(() => kafkaTransport({ brokers: [] })).toThrow(/brokers/);
    expect(() => kafkaTransport({ brokers: ['localhost:9092'], partitions: 0 })).toThrow(/partitions/);
    expect(() => kafkaTransport({ brokers: ['localhost:9092'], maxInflight: 1.5 })).toThrow(/maxInflight/);
  });
});

describe('kafka - poison messages through the inbox', () => {
  it('kafka - a request that keeps failing is dead-lettered after its attempts and does not block its partition', async () => {
    const requests = `${topic()}.requests`;
    const peers = new PeerTable([{ id: 'worker', routes: [{ kind: 'kafka', requestsTopic: requests }] }]);
    // One partition: the poison message and the healthy ones share it.
    const worker = new AgentNode({
      id: 'worker',
      tenantId: kafka.tenantId,
      transports: [kafkaTransport({ brokers: kafka.brokers, partitions: 1 })],
      topics: { requests },
      limits: { maxDeliveryAttempts: 3, retryDelayMs: 50 },
    });
    const caller = new AgentNode({ id: 'caller', tenantId: kafka.tenantId, transports: [kafkaTransport({ brokers: kafka.brokers })], peers });
    const attempts: number[] = [];
    worker.handle<string>('work', (input, ctx) => {
      if (input !== 'poison') return `done ${input}`;
      attempts.push(ctx.attempt);
      throw new RpcError('ALWAYS_FAILS', 'this input never works', { retriable: true });
    });
    await worker.start();
    await caller.start();
    try {
      const poison = caller.requestAgent({ to: 'worker', capability: 'work', payload: 'poison', timeoutMs: 30_000 });
      const healthy = await Promise.all(['a', 'b', 'c'].map((p) => caller.requestAgent({ to: 'worker', capability: 'work', payload: p, timeoutMs: 30_000 })));
      expect(healthy.map((r) => r.response)).toEqual(['done a', 'done b', 'done c']);
      expect(await poison).toMatchObject({ status: 'error', error: { code: 'ALWAYS_FAILS' } });
      expect(attempts).toEqual([1, 2, 3]);
      const [record] = await worker.dlq.list();
      expect(record).toMatchObject({ kind: 'handler-failed', reason: 'ALWAYS_FAILS', transport: 'kafka', coordinates: { topic: requests, partition: 0 } });
    } finally {
      await caller.close();
      await worker.close();
    }
  }, 60_000);
});
