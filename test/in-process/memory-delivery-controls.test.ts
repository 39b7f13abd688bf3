import { afterEach, describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { DlqRecord } from '../../src/dlq/record.js';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-store.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import type { RpcTransport } from '../../src/transport.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { Collector } from '../support/collector.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet, gate, until } from '../support/fleet.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function fleet(): Promise<MemoryFleet> {
  const f = new MemoryFleet();
  closers.push(() => f.close());
  return f;
}

const request = (overrides: Partial<AgentRpcEnvelope> = {}): AgentRpcEnvelope => foreignRequest({ capability: 'work', payload: 'job', ...overrides });

describe('delivery controls - limits', () => {
  it('delivery controls - concurrency bounds the handlers running at once', async () => {
    const f = await fleet();
    const caller = await f.node('caller');
    const svc = await f.node('svc', { limits: { concurrency: 2 } });
    let running = 0;
    let peak = 0;
    const release = gate();
    svc.handle('work', async () => {
      running++;
      peak = Math.max(peak, running);
      await release.promise;
      running--;
    });
    const calls = Array.from({ length: 6 }, () => caller.requestAgent({ to: 'svc', capability: 'work', payload: null }));
    await until(() => running === 2);
    // Another call travels through the bus and back while the two slots stay taken.
    (await f.node('probe')).handle('ping', () => 'pong');
    expect((await caller.requestAgent({ to: 'probe', capability: 'ping', payload: null })).response).toBe('pong');
    expect(running).toBe(2);
    release.open();
    expect((await Promise.all(calls)).every((r) => r.status === 'ok')).toBe(true);
    expect(peak).toBe(2);
  });
});

describe('delivery controls - dedupe claims', () => {
  it('delivery controls - a message claimed by a process that died runs once its claim lapses, not never', async () => {
    const f = await fleet();
    const store = new MemoryIdempotencyStore();
    const svc = await f.node('svc', { idempotency: { store, leaseMs: 30 }, limits: { retryDelayMs: 5 } });
    let runs = 0;
    svc.handle('work', () => ++runs);
    const envelope = request();
    // The claim a crashed consumer left behind.
    store.claim(envelope.messageId, 30, { instance: 'another-replica', life: 'gone' });
    const replies = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('test.replies', replies.handler);
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(envelope) });
    const [reply] = await replies.waitFor(1);
    const decoded = decodeEnvelope(reply!.body);
    expect(decoded.ok && decoded.envelope.payload).toEqual({ ok: true, data: 1 });
    expect(runs).toBe(1);
  });
});

describe('delivery controls - claims of live replicas', () => {
  it('delivery controls - a duplicate reaching a second replica while the first runs it waits uncounted and is answered with the first run\'s reply', async () => {
    const f = await fleet();
    const store = new MemoryIdempotencyStore();
    const release = gate();
    let runs = 0;
    const attempts: Record<string, number[]> = { 'svc-a': [], 'svc-b': [] };
    for (const instanceId of ['svc-a', 'svc-b']) {
      const transport = memoryTransport({ bus: f.bus });
      // Every delivery of the request topic this replica gets, with its attempt.
      const seeing = new Proxy(transport, {
        get(target, property, receiver) {
          if (property !== 'subscribe') return Reflect.get(target, property, receiver);
          const subscribe: RpcTransport['subscribe'] = (topic, handler, options) =>
            target.subscribe(topic, (d) => {
              if (topic === 'agents.svc.requests') attempts[instanceId]!.push(d.attempt);
              handler(d);
            }, options);
          return subscribe;
        },
      });
      const node = new AgentNode({ id: 'svc', instanceId, transports: [seeing], idempotency: { store } });
      node.handle('work', async () => {
        runs++;
        await release.promise;
        return 'done once';
      });
      await node.start();
      closers.push(() => node.close());
    }
    const replies = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('test.replies', replies.handler);
    // The same message twice (a publisher's retry): the group hands one to each replica.
    const body = encodeEnvelope(request());
    await raw.publish('agents.svc.requests', { body });
    await raw.publish('agents.svc.requests', { body });
    // The replica without the claim has looked at its copy again at least once, uncounted.
    await until(() => attempts['svc-a']!.length + attempts['svc-b']!.length >= 3, 10_000);
    release.open();
    const [first, second] = await replies.waitFor(2);
    expect(Buffer.from(second!.body).equals(Buffer.from(first!.body))).toBe(true);
    const decoded = decodeEnvelope(first!.body);
    expect(decoded.ok && decoded.envelope.payload).toEqual({ data: 'done once', ok: true });
    expect(runs).toBe(1);
    expect([...attempts['svc-a']!, ...attempts['svc-b']!].every((attempt) => attempt === 1)).toBe(true);
  });
});

describe('delivery controls - dedupe strategies', () => {
  it('delivery controls - transport-natural keys on the delivery: a second publish of one messageId runs again', async () => {
    const f = await fleet();
    const svc = await f.node('svc', { idempotency: { strategy: 'transport-natural' }, limits: { retryDelayMs: 1 } });
    const runs: number[] = [];
    svc.handle('work', (_input, ctx) => {
      runs.push(ctx.attempt);
      // A failed first attempt: its redelivery carries the same delivery identity and runs.
      if (ctx.attempt === 1) throw new RpcError('FLAKY', 'flaky', { retriable: true });
      return 'ok';
    });
    const replies = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('test.replies', replies.handler);
    const body = encodeEnvelope(request());
    await raw.publish('agents.svc.requests', { body });
    await replies.waitFor(1);
    // Same messageId, but a new delivery: under transport-natural it runs again.
    await raw.publish('agents.svc.requests', { body });
    await replies.waitFor(2);
    expect(runs).toEqual([1, 2, 1, 2]);
  });

  it('delivery controls - message-id dedupes two publishes of one messageId', async () => {
    const f = await fleet();
    const svc = await f.node('svc');
    let runs = 0;
    svc.handle('work', () => ++runs);
    const replies = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('test.replies', replies.handler);
    const body = encodeEnvelope(request());
    await raw.publish('agents.svc.requests', { body });
    await replies.waitFor(1);
    await raw.publish('agents.svc.requests', { body });
    await replies.waitFor(2);
    expect(runs).toBe(1);
  });
});

describe('delivery controls - DLQ topic and requeue', () => {
  it('delivery controls - DLQ records are also published to agents.<id>.dlq', async () => {
    const f = await fleet();
    const svc = await f.node('svc');
    const onTopic = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('agents.svc.dlq', onTopic.handler);
    await raw.publish('agents.svc.requests', { body: Buffer.from('[1,2,3]') });
    const [delivery] = await onTopic.waitFor(1);
    const published = JSON.parse(Buffer.from(delivery!.body).toString()) as DlqRecord;
    const [stored] = await svc.dlq.list();
    expect(published).toEqual(stored);
    expect(published).toMatchObject({ kind: 'decode-failed', reason: 'not-an-object' });
  });

  it('delivery controls - a requeued handler-failed request is dispatched again and answered', async () => {
    const f = await fleet();
    const svc = await f.node('svc', { limits: { maxDeliveryAttempts: 2, retryDelayMs: 1 } });
    let healthy = false;
    const attempts: number[] = [];
    svc.handle('work', (_input, ctx) => {
      attempts.push(ctx.attempt);
      if (!healthy) throw new RpcError('DB_DOWN', 'database unavailable', { retriable: true });
      return 'done at last';
    });
    const replies = new Collector({ autoAck: true });
    const raw = await f.raw();
    await raw.subscribe('test.replies', replies.handler);
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request()) });
    await until(async () => (await svc.dlq.list()).length === 1);
    const [record] = await svc.dlq.list();
    expect(record).toMatchObject({ kind: 'handler-failed', reason: 'DB_DOWN' });
    healthy = true;
    expect(await svc.requeueDlq(record!.id)).toEqual({ transport: 'memory', topic: 'agents.svc.requests' });
    const [failed, answered] = await replies.waitFor(2);
    const payloadOf = (body: Uint8Array) => {
      const decoded = decodeEnvelope(body);
      return decoded.ok ? decoded.envelope.payload : decoded.reason;
    };
    expect(payloadOf(failed!.body)).toMatchObject({ ok: false, error: { code: 'DB_DOWN' } });
    expect(payloadOf(answered!.body)).toEqual({ ok: true, data: 'done at last' });
    expect(attempts).toEqual([1, 2, 1]);
  });

  it('delivery controls - an undeliverable reply is retried, kept, and requeued to its caller', async () => {
    // retainLimit 0: a topic nobody consumes refuses messages, so the reply cannot be sent.
    const bus = new MemoryBus({ retainLimit: 0 });
    const svc = new AgentNode({ id: 'svc', transports: [memoryTransport({ bus })], limits: { maxDeliveryAttempts: 2, retryDelayMs: 1 } });
    closers.push(() => svc.close());
    let runs = 0;
    svc.handle('work', () => ++runs);
    await svc.start();
    const raw = memoryTransport({ bus });
    closers.push(() => raw.close());
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request()) });
    await until(async () => (await svc.dlq.list()).length === 1);
    const [record] = await svc.dlq.list();
    expect(record).toMatchObject({ kind: 'reply-undeliverable', reason: 'EAGENTRPC_BUSY', replyTo: 'memory://test.replies', attempt: 2 });
    expect(runs).toBe(1);
    const replies = new Collector({ autoAck: true });
    await raw.subscribe('test.replies', replies.handler);
    await svc.requeueDlq(record!.id);
    const [reply] = await replies.waitFor(1);
    const decoded = decodeEnvelope(reply!.body);
    expect(decoded.ok && decoded.envelope.payload).toEqual({ ok: true, data: 1 });
    expect(runs).toBe(1);
  });

  it('delivery controls - requeue of an unknown record is a RangeError', async () => {
    const f = await fleet();
    const svc = await f.node('svc');
    await expect(svc.requeueDlq('nope')).rejects.toThrow(RangeError);
  });
});
