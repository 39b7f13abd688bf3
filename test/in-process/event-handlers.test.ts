import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { DlqRecord } from '../../src/dlq/record.js';
import type { AgentNode } from '../../src/rpc/agent-node.js';
import type { LocalBusEvents } from '../../src/rpc/local-bus.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet, until } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

const event = (overrides: Partial<AgentRpcEnvelope> = {}): AgentRpcEnvelope => {
  const { replyTo: _none, ...request } = foreignRequest({ capability: 'record', payload: { n: 1 }, ...overrides });
  return { ...request, kind: 'event' };
};

async function dlqRecords(node: AgentNode, count: number): Promise<DlqRecord[]> {
  await until(async () => (await node.dlq.list()).length >= count);
  return node.dlq.list();
}

describe('event handlers', () => {
  it('event handlers - a fire-and-forget call runs the event handler once, and still reaches the local bus', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const handled: Array<{ payload: unknown; from: string; correlationId: string }> = [];
    svc.handleEvents('record', (payload, ctx) => {
      handled.push({ payload, from: ctx.from, correlationId: ctx.correlationId });
    });
    const onBus: Array<LocalBusEvents['agent.rpc.event']> = [];
    svc.on('agent.rpc.event', (e) => onBus.push(e));
    const sent = await caller.requestAgent({ to: 'svc', capability: 'record', payload: { n: 1 }, mode: 'fire-and-forget' });
    expect(sent.status).toBe('ok');
    await until(() => handled.length === 1 && onBus.length === 1);
    expect(handled[0]).toMatchObject({ payload: { n: 1 }, from: 'agent://caller', correlationId: onBus[0]!.envelope.correlationId });
    expect(await svc.dlq.list()).toEqual([]);
  });

  it('event handlers - the same event delivered twice runs its handler once', async () => {
    const svc = await fleet.node('svc');
    let runs = 0;
    svc.handleEvents('record', () => {
      runs += 1;
    });
    const raw = await fleet.raw();
    const body = encodeEnvelope(event());
    await raw.publish('agents.svc.requests', { body });
    await until(() => runs === 1);
    await raw.publish('agents.svc.requests', { body });
    // A third, different event proves the second was processed (the transport delivers in order).
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(event()) });
    await until(() => runs === 2);
    expect(runs).toBe(2);
  });

  it('event handlers - a retriable failure is delivered again; one that recovers leaves no DLQ record', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { retryDelayMs: 1 } });
    const attempts: number[] = [];
    svc.handleEvents('record', (_payload, ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt === 1) throw new RpcError('UPSTREAM_DOWN', 'upstream unavailable', { retriable: true });
    });
    await caller.requestAgent({ to: 'svc', capability: 'record', payload: null, mode: 'fire-and-forget' });
    await until(() => attempts.length === 2);
    expect(attempts).toEqual([1, 2]);
    expect(await svc.dlq.list()).toEqual([]);
  });

  it('event handlers - a failure that never recovers ends in the DLQ as handler-failed once attempts run out', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { maxDeliveryAttempts: 3, retryDelayMs: 1 } });
    const attempts: number[] = [];
    svc.handleEvents('record', (_payload, ctx) => {
      attempts.push(ctx.attempt);
      throw new RpcError('UPSTREAM_DOWN', 'upstream unavailable', { retriable: true });
    });
    await caller.requestAgent({ to: 'svc', capability: 'record', payload: { n: 7 }, mode: 'fire-and-forget' });
    const [record] = await dlqRecords(svc, 1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(record).toMatchObject({ kind: 'handler-failed', reason: 'UPSTREAM_DOWN', attempt: 3, error: { code: 'UPSTREAM_DOWN' } });
  });

  it('event handlers - a non-retriable failure is dead-lettered at once: an event has no caller to tell', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { retryDelayMs: 1 } });
    const attempts: number[] = [];
    svc.handleEvents('record', (_payload, ctx) => {
      attempts.push(ctx.attempt);
      throw new RpcError('BAD_RECORD', 'record refused');
    });
    await caller.requestAgent({ to: 'svc', capability: 'record', payload: null, mode: 'fire-and-forget' });
    const [record] = await dlqRecords(svc, 1);
    expect(attempts).toEqual([1]);
    expect(record).toMatchObject({ kind: 'handler-failed', reason: 'BAD_RECORD', error: { code: 'BAD_RECORD', retriable: false } });
  });

  it('event handlers - an event whose payload breaks the input schema is dead-lettered and not handled', async () => {
    const svc = await fleet.node('svc', { capabilities: [{ name: 'record', inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } }] });
    let runs = 0;
    svc.handleEvents('record', () => {
      runs += 1;
    });
    const raw = await fleet.raw();
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(event({ payload: { n: 'seven' } })) });
    const [record] = await dlqRecords(svc, 1);
    expect(record).toMatchObject({ kind: 'schema-violation', reason: 'input' });
    expect(runs).toBe(0);
  });

  it('event handlers - a capability with only an event handler refuses requests as unknown', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    svc.handleEvents('record', () => undefined);
    const result = await caller.requestAgent({ to: 'svc', capability: 'record', payload: null });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
  });

  it('event handlers - a capability may take requests and events, each by its own handler', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const seen: string[] = [];
    svc.handle('record', () => {
      seen.push('request');
      return 'recorded';
    });
    svc.handleEvents('record', () => {
      seen.push('event');
    });
    expect((await caller.requestAgent({ to: 'svc', capability: 'record', payload: null })).response).toBe('recorded');
    await caller.requestAgent({ to: 'svc', capability: 'record', payload: null, mode: 'fire-and-forget' });
    await until(() => seen.length === 2);
    expect(seen).toEqual(['request', 'event']);
    expect(() => svc.handleEvents('record', () => undefined)).toThrow(TypeError);
  });
});

describe('ctx.emit', () => {
  it('ctx.emit - a handler emits an event that joins its flow', async () => {
    const caller = await fleet.node('caller');
    const reviewer = await fleet.node('reviewer');
    const auditor = await fleet.node('auditor');
    const reviewRequests: string[] = [];
    reviewer.handle('review', async (_input, ctx) => {
      reviewRequests.push(ctx.envelope.messageId);
      await ctx.emit('auditor', 'reviewed', { verdict: 'ok' });
      return 'done';
    });
    const received: AgentRpcEnvelope[] = [];
    auditor.handleEvents('reviewed', (_payload, ctx) => {
      received.push(ctx.envelope);
    });
    const result = await caller.requestAgent({ to: 'reviewer', capability: 'review', payload: null });
    expect(result.status).toBe('ok');
    await until(() => received.length === 1);
    const [emitted] = received;
    expect(emitted).toMatchObject({ kind: 'event', from: 'agent://reviewer', to: 'agent://auditor', capability: 'reviewed', payload: { verdict: 'ok' }, correlationId: result.correlationId });
    expect(emitted!.causedBy).toBe(reviewRequests[0]);
    expect(emitted!.replyTo).toBeUndefined();
  });

  it('ctx.emit - an emit the permission rules deny rejects with the typed error, and nothing is sent', async () => {
    const caller = await fleet.node('caller');
    const reviewer = await fleet.node('reviewer', { permissions: { deny: ['RequestAgent:agent://auditor/*'] } });
    const auditor = await fleet.node('auditor');
    let received = 0;
    auditor.handleEvents('reviewed', () => {
      received += 1;
    });
    reviewer.handle('review', async (_input, ctx) => {
      const refused = await ctx.emit('auditor', 'reviewed', {}).catch((error: unknown) => error);
      return refused instanceof RpcError ? refused.code : 'sent';
    });
    const result = await caller.requestAgent({ to: 'reviewer', capability: 'review', payload: null });
    expect(result.response).toBe('EAGENTRPC_PERMISSION_DENIED');
    expect(received).toBe(0);
  });
});
