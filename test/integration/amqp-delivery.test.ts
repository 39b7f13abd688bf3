import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../src/errors.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import type { RpcTransport } from '../../src/transport.js';
import { amqpTransport } from '../../transports/amqp/index.js';
import { runAmqp } from '../support/amqp-target.js';
import { Collector } from '../support/collector.js';

const amqp = await runAmqp();
const bytes = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const freshTopic = (): string => `agents.${randomUUID().slice(0, 8)}.requests`;

describe('amqp transport - delivery guarantees', () => {
  const opened: RpcTransport[] = [];
  const open = async (options: Parameters<typeof amqp.transport>[0] = {}): Promise<RpcTransport> => {
    const transport = await amqp.transport(options);
    opened.push(transport);
    return transport;
  };
  afterAll(async () => {
    for (const transport of opened) await transport.close();
  });

  it('amqp - a message nacked maxDeliver times is dead-lettered and handed over once more, flagged exhausted', async () => {
    const a = await open({ maxDeliver: 3 });
    const topic = freshTopic();
    const got = new Collector();
    const sub = await a.subscribe(topic, (d) => {
      got.handler(d);
      if (d.exhausted) d.ack();
      else d.nack();
    }, { group: 'dead-letter' });
    await a.publish(topic, { body: bytes('poison'), messageId: 'm-poison' });
    const deliveries = await got.waitFor(4);
    expect(deliveries.map((d) => [d.attempt, d.exhausted === true])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    // One broker message, one delivery id: given by the consumer, never the publisher's message-id.
    const ids = new Set(deliveries.map((d) => d.coordinates.deliveryId));
    expect(ids.size).toBe(1);
    expect(ids.has('m-poison')).toBe(false);
    // Acked from the dead-letter queue: nothing comes back, to a new member either.
    await sub.close();
    const late = new Collector({ autoAck: true });
    await (await open({ maxDeliver: 3 })).subscribe(topic, late.handler, { group: 'dead-letter' });
    await a.publish(topic, { body: bytes('next') });
    expect((await late.waitFor(1)).map((d) => Buffer.from(d.body).toString())).toEqual(['next']);
    expect(got.deliveries).toHaveLength(4);
  });

  it('amqp - a delivery left unacked by a member that goes away is redelivered to another, the attempt counted', async () => {
    const [first, second] = [await open(), await open()];
    const topic = freshTopic();
    const held = new Collector();
    await first.subscribe(topic, held.handler, { group: 'replicas' });
    await first.publish(topic, { body: bytes('work'), messageId: 'm-work' });
    await held.waitFor(1);
    await first.close();
    const taken = new Collector({ autoAck: true });
    await second.subscribe(topic, taken.handler, { group: 'replicas' });
    const [delivery] = await taken.waitFor(1);
    expect(delivery!.attempt).toBe(2);
    expect(delivery!.coordinates.deliveryId).not.toBe('m-work');
    held.deliveries[0]!.ack(); // too late: its channel is gone, and that must not throw
  });

  it('amqp - a message whose consumers keep going away without settling it is dead-lettered after maxDeliver deliveries', async () => {
    const topic = freshTopic();
    const publisher = await open({ maxDeliver: 3 });
    await publisher.publish(topic, { body: bytes('kills-its-consumer'), messageId: 'm-killer' });
    const attempts: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Each member takes it and goes away holding it, as a crashed process would.
      const member = await amqp.transport({ maxDeliver: 3 });
      const held = new Collector();
      await member.subscribe(topic, held.handler, { group: 'crashing' });
      const [delivery] = await held.waitFor(1);
      attempts.push(delivery!.attempt);
      ids.push(delivery!.coordinates.deliveryId);
      expect(delivery!.exhausted ?? false).toBe(false);
      await member.close();
    }
    const last = new Collector({ autoAck: true });
    await (await open({ maxDeliver: 3 })).subscribe(topic, last.handler, { group: 'crashing' });
    const [final] = await last.waitFor(1);
    expect(attempts).toEqual([1, 2, 3]);
    // The first member's id went with it; from the first republish on, the copies keep one id.
    expect([final!.attempt, final!.exhausted]).toEqual([4, true]);
    expect(new Set([ids[1], ids[2], final!.coordinates.deliveryId]).size).toBe(1);
    expect(ids).not.toContain('m-killer');
  });

  it('amqp - a request the broker dead-letters reaches the DLQ with max-deliver, and the caller is told', async () => {
    const id = `flaky-${randomUUID().slice(0, 6)}`;
    const peers = new PeerTable([{ id, routes: [{ kind: 'amqp' }] }]);
    // The inbox would retry 5 times; the broker gives up after 2 deliveries.
    const flaky = new AgentNode({ id, transports: [amqpTransport({ url: amqp.url, prefix: amqp.prefix, maxDeliver: 2 })], peers, limits: { maxDeliveryAttempts: 5, retryDelayMs: 20 } });
    const caller = new AgentNode({ id: `caller-${id}`, transports: [amqpTransport({ url: amqp.url, prefix: amqp.prefix })], peers });
    let runs = 0;
    flaky.handle('fail', () => {
      runs++;
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', 'downstream unavailable');
    });
    await flaky.start();
    await caller.start();
    try {
      const result = await caller.requestAgent({ to: id, capability: 'fail', payload: null, timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_HANDLER_FAILED' } });
      const [record] = await flaky.dlq.list();
      expect(record).toMatchObject({ kind: 'handler-failed', reason: 'max-deliver', transport: 'amqp' });
      expect(runs).toBe(2);
    } finally {
      await caller.close();
      await flaky.close();
    }
  }, 30_000);
});
