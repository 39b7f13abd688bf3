import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { DlqRecord } from '../../src/dlq/record.js';
import { MemoryDlqSink } from '../../src/dlq/memory-sink.js';
import type { AgentNode } from '../../src/rpc/agent-node.js';
import { Collector } from '../support/collector.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet, until } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

const request = (overrides: Partial<AgentRpcEnvelope> = {}): AgentRpcEnvelope => foreignRequest({ capability: 'count', payload: null, ...overrides });

async function replies(): Promise<Collector> {
  const collector = new Collector({ autoAck: true });
  await (await fleet.raw()).subscribe('test.replies', collector.handler);
  return collector;
}

function payloadOf(body: Uint8Array): unknown {
  const decoded = decodeEnvelope(body);
  if (!decoded.ok) throw new Error(`reply did not decode: ${decoded.reason}`);
  return decoded.envelope.payload;
}

async function dlqRecords(node: AgentNode, count: number): Promise<DlqRecord[]> {
  await until(async () => (await node.dlq.list()).length >= count);
  return node.dlq.list();
}

describe('inbox - responses', () => {
  it('inbox - progress responses reach onProgress in order; the call settles on the final one', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    svc.handle('steps', async (_input, ctx) => {
      await ctx.respond({ ok: true, data: 'step 1' }, { progress: true });
      await ctx.respond({ ok: true, data: 'step 2' }, { progress: true });
      await ctx.respond({ ok: true, data: 'done' });
      return 'ignored: the final response was already sent';
    });
    const progress: unknown[] = [];
    const result = await caller.requestAgent({ to: 'svc', capability: 'steps', payload: null, onProgress: (d) => progress.push(d) });
    expect(progress).toEqual(['step 1', 'step 2']);
    expect(result).toMatchObject({ status: 'ok', response: 'done' });
  });

  it('inbox - respond after the final response throws in the handler; an error cannot be progress', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const problems: string[] = [];
    svc.handle('twice', async (_input, ctx) => {
      await ctx.respond({ ok: true, data: 1 });
      await ctx.respond({ ok: true, data: 2 }).catch((e: RpcError) => problems.push(e.code));
    });
    svc.handle('error-as-progress', async (_input, ctx) => {
      await ctx.respond({ ok: false, error: { code: 'X', message: 'x' } }, { progress: true }).catch((e: Error) => problems.push(e.name));
      return 'still answered';
    });
    expect((await caller.requestAgent({ to: 'svc', capability: 'twice', payload: null })).response).toBe(1);
    expect((await caller.requestAgent({ to: 'svc', capability: 'error-as-progress', payload: null })).response).toBe('still answered');
    await until(() => problems.length === 2);
    expect(problems.sort()).toEqual(['EAGENTRPC_HANDLER_FAILED', 'TypeError']);
  });
});

describe('inbox - flow context', () => {
  it('inbox - calls made inside a handler join the flow: same correlationId, causedBy, shrunk deadline', async () => {
    const caller = await fleet.node('caller');
    const middle = await fleet.node('middle');
    const leaf = await fleet.node('leaf');
    const seen: AgentRpcEnvelope[] = [];
    leaf.handle('leaf', (_input, ctx) => {
      seen.push(ctx.envelope);
      return ctx.envelope.messageId;
    });
    let parent: AgentRpcEnvelope | undefined;
    middle.handle('fan-out', async (_input, ctx) => {
      parent = ctx.envelope;
      const [a, b] = await Promise.all([
        middle.requestAgent({ to: 'leaf', capability: 'leaf', payload: 'a', timeoutMs: 600_000 }),
        middle.requestAgent({ to: 'leaf', capability: 'leaf', payload: 'b', timeoutMs: 600_000 }),
      ]);
      return [a.status, b.status];
    });
    const result = await caller.requestAgent({ to: 'middle', capability: 'fan-out', payload: null, timeoutMs: 5_000 });
    expect(result.response).toEqual(['ok', 'ok']);
    expect(seen).toHaveLength(2);
    for (const child of seen) {
      expect(child.correlationId).toBe(result.correlationId);
      expect(child.causedBy).toBe(parent!.messageId);
      expect(child.deadline).toBe(parent!.deadline);
    }
    expect(seen[0]!.messageId).not.toBe(seen[1]!.messageId);
  });
});

describe('inbox - dedupe', () => {
  it('inbox - a redelivered request is not dispatched again; its first response is sent again', async () => {
    const svc = await fleet.node('svc');
    let runs = 0;
    svc.handle('count', () => ++runs);
    const got = await replies();
    const raw = await fleet.raw();
    const body = encodeEnvelope(request());
    await raw.publish('agents.svc.requests', { body });
    await got.waitFor(1);
    await raw.publish('agents.svc.requests', { body });
    const [first, second] = await got.waitFor(2);
    expect(runs).toBe(1);
    expect(Buffer.compare(Buffer.from(first!.body), Buffer.from(second!.body))).toBe(0);
    expect(payloadOf(first!.body)).toEqual({ ok: true, data: 1 });
  });

  it('inbox - a retriable failure is redelivered up to the limit, then answered and dead-lettered', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { maxDeliveryAttempts: 3, retryDelayMs: 1 } });
    const attempts: number[] = [];
    svc.handle('flaky', (_input, ctx) => {
      attempts.push(ctx.attempt);
      throw new RpcError('UPSTREAM_DOWN', 'upstream unavailable', { retriable: true });
    });
    const result = await caller.requestAgent({ to: 'svc', capability: 'flaky', payload: null });
    expect(attempts).toEqual([1, 2, 3]);
    expect(result.error).toMatchObject({ code: 'UPSTREAM_DOWN', retriable: true });
    const [record] = await dlqRecords(svc, 1);
    expect(record).toMatchObject({ kind: 'handler-failed', reason: 'UPSTREAM_DOWN', attempt: 3, error: { code: 'UPSTREAM_DOWN' } });
  });

  it('inbox - a retriable failure that recovers on redelivery answers ok and leaves no DLQ record', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { retryDelayMs: 1 } });
    svc.handle('recovers', (_input, ctx) => {
      if (ctx.attempt === 1) throw new RpcError('EAGENTRPC_BUSY', 'try again');
      return ctx.attempt;
    });
    expect((await caller.requestAgent({ to: 'svc', capability: 'recovers', payload: null })).response).toBe(2);
    expect(await svc.dlq.list()).toEqual([]);
  });
});

describe('inbox - dead-letter reasons', () => {
  it('inbox - undecodable bytes are dead-lettered with the decoder reason and the raw bytes', async () => {
    const svc = await fleet.node('svc');
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: Buffer.from('{"version":1,"version":1}') });
    await raw.publish('agents.svc.requests', { body: Buffer.from([0xff, 0xfe]) });
    const records = await dlqRecords(svc, 2);
    expect(records.map((r) => [r.kind, r.reason]).sort()).toEqual([
      ['decode-failed', 'duplicate-key'],
      ['decode-failed', 'invalid-utf8'],
    ]);
    const dup = records.find((r) => r.reason === 'duplicate-key')!;
    expect(Buffer.from(dup.rawBase64, 'base64').toString()).toBe('{"version":1,"version":1}');
    expect(dup.coordinates.topic).toBe('agents.svc.requests');
    expect(dup.transport).toBe('memory');
  });

  it('inbox - a tenant mismatch and a wrong recipient are dead-lettered, not dispatched', async () => {
    const svc = await fleet.node('svc');
    let runs = 0;
    svc.handle('count', () => ++runs);
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request({ tenantId: 'acme' })) });
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request({ to: 'agent://someone-else' })) });
    const records = await dlqRecords(svc, 2);
    expect(records.map((r) => r.kind).sort()).toEqual(['misrouted', 'tenant-mismatch']);
    expect(runs).toBe(0);
  });

  it('inbox - tenant-scoped agents talk on tenant topics and accept their own tenant only', async () => {
    const caller = await fleet.node('caller', { tenantId: 'acme' });
    const svc = await fleet.node('svc', { tenantId: 'acme' });
    svc.handle('who', (_input, ctx) => ctx.envelope.tenantId);
    expect((await caller.requestAgent({ to: 'svc', capability: 'who', payload: null })).response).toBe('acme');
    const raw = await fleet.raw();
    await raw.publish('agents.svc.acme.requests', { body: encodeEnvelope(request({ tenantId: 'globex' })) });
    expect((await dlqRecords(svc, 1))[0]).toMatchObject({ kind: 'tenant-mismatch', coordinates: { topic: 'agents.svc.acme.requests' } });
  });

  it('inbox - an unknown capability answers EAGENTRPC_UNKNOWN_CAPABILITY and is dead-lettered', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const result = await caller.requestAgent({ to: 'svc', capability: 'missing', payload: null });
    expect(result.error?.code).toBe('EAGENTRPC_UNKNOWN_CAPABILITY');
    expect((await dlqRecords(svc, 1))[0]).toMatchObject({ kind: 'unknown-capability', envelope: { capability: 'missing' } });
  });

  it('inbox - a request past its deadline is refused with EAGENTRPC_DEADLINE_EXCEEDED; an expired event is dead-lettered', async () => {
    const svc = await fleet.node('svc');
    let runs = 0;
    svc.handle('count', () => ++runs);
    const got = await replies();
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request({ deadline: Date.now() - 1_000 })) });
    const [reply] = await got.waitFor(1);
    expect(payloadOf(reply!.body)).toMatchObject({ ok: false, error: { code: 'EAGENTRPC_DEADLINE_EXCEEDED' } });
    const event = request({ kind: 'event', deadline: Date.now() - 1_000 });
    delete event.replyTo;
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(event) });
    expect((await dlqRecords(svc, 1))[0]).toMatchObject({ kind: 'deadline-expired', envelope: { kind: 'event' } });
    expect(runs).toBe(0);
  });

  it('inbox - a reply no loaded transport can reach is dead-lettered as reply-undeliverable', async () => {
    const svc = await fleet.node('svc');
    svc.handle('count', () => 1);
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(request({ replyTo: 'nats://agents.tester.responses' })) });
    const [record] = await dlqRecords(svc, 1);
    expect(record).toMatchObject({ kind: 'reply-undeliverable', reason: 'EAGENTRPC_NO_TRANSPORT' });
    const kept = decodeEnvelope(Buffer.from(record!.rawBase64, 'base64'));
    expect(kept.ok && kept.envelope.kind).toBe('response');
  });

  it('inbox - when the DLQ cannot store a record the message is redelivered, not lost', async () => {
    const sink = new MemoryDlqSink();
    let failures = 1;
    const flaky = {
      write: (record: DlqRecord) => (failures-- > 0 ? Promise.reject(new Error('disk full')) : sink.write(record)),
      list: sink.list.bind(sink),
      get: sink.get.bind(sink),
    };
    const svc = await fleet.node('svc', { dlq: flaky, limits: { retryDelayMs: 1 } });
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: Buffer.from('not json') });
    const [record] = await dlqRecords(svc, 1);
    expect(record).toMatchObject({ kind: 'decode-failed', reason: 'invalid-json', attempt: 2 });
  });
});

describe('inbox - shutdown', () => {
  it('inbox - close() lets a running handler finish and deliver its answer', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    let started = false;
    let finish!: () => void;
    svc.handle('slow', async () => {
      started = true;
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return 'finished';
    });
    const pending = caller.requestAgent({ to: 'svc', capability: 'slow', payload: null });
    await until(() => started);
    const closing = svc.close();
    finish();
    await closing;
    expect(await pending).toMatchObject({ status: 'ok', response: 'finished' });
  });
});
