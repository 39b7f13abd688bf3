import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../src/trace-context.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet;
let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
beforeEach(() => {
  fleet = new MemoryFleet();
  exporter = new InMemorySpanExporter();
  // Given to the nodes, never registered: nothing global in tests.
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(async () => {
  await fleet.close();
  await provider.shutdown();
});

const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('tracing - spans of calls', () => {
  it('tracing - a nested call is one trace: send → process → handle → send → process → handle, with messaging attributes', async () => {
    const tracerProvider = provider;
    const [a, b, c] = [await fleet.node('a', { tracerProvider }), await fleet.node('b', { tracerProvider }), await fleet.node('c', { tracerProvider })];
    c.handle('leaf', () => 'done');
    b.handle('middle', async (_input, ctx) => (await ctx.requestAgent({ to: 'c', capability: 'leaf', payload: null })).response);
    const result = await a.requestAgent({ to: 'b', capability: 'middle', payload: null });
    expect(result.status).toBe('ok');
    const spans = exporter.getFinishedSpans();
    const sendB = one(spans, 'send agents.b.requests');
    const processB = one(spans, 'process agents.b.requests');
    const handleB = one(spans, 'handle middle');
    const sendC = one(spans, 'send agents.c.requests');
    const processC = one(spans, 'process agents.c.requests');
    const handleC = one(spans, 'handle leaf');
    const all = [sendB, processB, handleB, sendC, processC, handleC];
    expect(new Set(all.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(parentOf(sendB)).toBeUndefined();
    expect(parentOf(processB)).toBe(sendB.spanContext().spanId);
    expect(parentOf(handleB)).toBe(processB.spanContext().spanId);
    expect(parentOf(sendC)).toBe(handleB.spanContext().spanId);
    expect(parentOf(processC)).toBe(sendC.spanContext().spanId);
    expect(parentOf(handleC)).toBe(processC.spanContext().spanId);
    expect([sendB.kind, processB.kind, handleB.kind]).toEqual([SpanKind.PRODUCER, SpanKind.CONSUMER, SpanKind.INTERNAL]);
    expect(sendB.attributes).toMatchObject({
      'messaging.system': 'memory',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'agents.b.requests',
      'messaging.message.id': result.messageId,
      'messaging.message.conversation_id': result.correlationId,
      'agent_rpc.capability': 'middle',
      'agent_rpc.from': 'agent://a',
      'agent_rpc.to': 'agent://b',
      'agent_rpc.call.status': 'ok',
    });
    expect(processC.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'messaging.message.conversation_id': result.correlationId });
  });

  it('tracing - the traceparent a request carries names the caller\'s send span', async () => {
    const [a, b] = [await fleet.node('a', { tracerProvider: provider }), await fleet.node('b')];
    b.handle('tp', (_input, ctx) => ctx.envelope.headers!['traceparent']);
    const result = await a.requestAgent<string>({ to: 'b', capability: 'tp', payload: null });
    const send = one(exporter.getFinishedSpans(), 'send agents.b.requests');
    expect(parseTraceparent(result.response)).toEqual({ traceId: send.spanContext().traceId, parentId: send.spanContext().spanId, flags: '01' });
  });

  it('tracing - a guard refusal ends the call span in error with its code and a guard event', async () => {
    const [a, b] = [await fleet.node('a', { tracerProvider: provider }), await fleet.node('b', { tracerProvider: provider, guard: { maxDepth: 1 } })];
    const c = await fleet.node('c', { tracerProvider: provider });
    c.handle('leaf', () => 'never');
    b.handle('middle', async (_input, ctx) => {
      const refused = await ctx.requestAgent({ to: 'c', capability: 'leaf', payload: null });
      return refused.error?.code;
    });
    const result = await a.requestAgent<string>({ to: 'b', capability: 'middle', payload: null });
    expect(result.response).toBe('EAGENTRPC_GUARD_REJECTED');
    const spans = exporter.getFinishedSpans();
    const refused = one(spans, 'send agents.c.requests');
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused.attributes['error.type']).toBe('EAGENTRPC_GUARD_REJECTED');
    expect(refused.events.map((e) => e.name)).toEqual(['agent_rpc.guard.refused']);
    expect(refused.events[0]!.attributes).toMatchObject({ 'agent_rpc.guard.rule': 'depth', 'agent_rpc.to': 'c' });
    expect(parentOf(refused)).toBe(one(spans, 'handle middle').spanContext().spanId);
    expect(named(spans, 'process agents.c.requests')).toEqual([]);
  });

  it('tracing - a permission refusal and a handler error are recorded with their codes', async () => {
    const [a, b] = [await fleet.node('a', { tracerProvider: provider, permissions: { deny: ['RequestAgent:agent://b/secret'] } }), await fleet.node('b', { tracerProvider: provider })];
    b.handle('fails', () => {
      throw Object.assign(new Error('no'), { code: 'EAGENTRPC_HANDLER_FAILED' });
    });
    expect((await a.requestAgent({ to: 'b', capability: 'secret', payload: null })).error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');
    expect((await a.requestAgent({ to: 'b', capability: 'fails', payload: null })).status).toBe('error');
    const spans = exporter.getFinishedSpans();
    const denied = spans.find((s) => s.events.some((e) => e.name === 'agent_rpc.permission.denied'));
    expect(denied?.attributes['error.type']).toBe('EAGENTRPC_PERMISSION_DENIED');
    const handler = one(spans, 'handle fails');
    expect(handler.status.code).toBe(SpanStatusCode.ERROR);
    expect(typeof handler.attributes['error.type']).toBe('string');
  });

  it('tracing - a delivery for a capability nobody serves is dead-lettered with an event on its process span', async () => {
    const [a] = [await fleet.node('a', { tracerProvider: provider }), await fleet.node('b', { tracerProvider: provider })];
    const result = await a.requestAgent({ to: 'b', capability: 'missing', payload: null });
    expect(result.error?.code).toBe('EAGENTRPC_UNKNOWN_CAPABILITY');
    const processed = one(exporter.getFinishedSpans(), 'process agents.b.requests');
    expect(processed.attributes['error.type']).toBe('EAGENTRPC_UNKNOWN_CAPABILITY');
    expect(processed.events.find((e) => e.name === 'agent_rpc.dlq.recorded')?.attributes).toMatchObject({ 'agent_rpc.dlq.kind': 'unknown-capability', 'agent_rpc.dlq.reason': 'no-handler' });
  });

  it('tracing - a handler\'s approval question and its answer are events on the handler span', async () => {
    const [a, b] = [await fleet.node('a', { tracerProvider: provider }), await fleet.node('b', { tracerProvider: provider })];
    b.handle('ask', async (_input, ctx) => (await ctx.requestApproval({ type: 'command', question: 'rm -rf build?' })).approved);
    const result = await a.requestAgent({ to: 'b', capability: 'ask', payload: null, onApproval: async () => ({ approved: true, cancelled: false }) });
    expect(result.response).toBe(true);
    const handler = one(exporter.getFinishedSpans(), 'handle ask');
    expect(handler.events.map((e) => [e.name, e.attributes])).toEqual([
      ['agent_rpc.approval.requested', { 'agent_rpc.approval.type': 'command' }],
      ['agent_rpc.approval.answered', { 'agent_rpc.approval.approved': true }],
    ]);
  });

  it('tracing - a receiver\'s guard refusal ends its process span in error with a guard event', async () => {
    const tracerProvider = provider;
    const [a, b, c] = [await fleet.node('a', { tracerProvider }), await fleet.node('b', { tracerProvider }), await fleet.node('c', { tracerProvider, guard: { maxDepth: 1 } })];
    c.handle('leaf', () => 'never');
    b.handle('middle', async (_input, ctx) => (await ctx.requestAgent({ to: 'c', capability: 'leaf', payload: null })).error?.code);
    expect((await a.requestAgent({ to: 'b', capability: 'middle', payload: null })).response).toBe('EAGENTRPC_GUARD_REJECTED');
    const spans = exporter.getFinishedSpans();
    const refused = one(spans, 'process agents.c.requests');
    expect(refused.attributes['error.type']).toBe('EAGENTRPC_GUARD_REJECTED');
    expect(refused.events.map((e) => e.name)).toContain('agent_rpc.guard.refused');
    expect(parentOf(refused)).toBe(one(spans, 'send agents.c.requests').spanContext().spanId);
    expect(named(spans, 'handle leaf')).toEqual([]);
  });

  it('tracing - a trace the SDK samples out travels unsampled, so the next hop drops it too', async () => {
    const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const [a, b] = [await fleet.node('a', { tracerProvider: sampledOut }), await fleet.node('b', { tracerProvider: provider })];
    b.handle('tp', (_input, ctx) => ctx.envelope.headers!['traceparent']);
    const result = await a.requestAgent<string>({ to: 'b', capability: 'tp', payload: null });
    expect(parseTraceparent(result.response)?.flags).toBe('00');
    // b's provider samples everything new, but follows the caller's decision: nothing recorded anywhere.
    expect(exporter.getFinishedSpans()).toEqual([]);
    await sampledOut.shutdown();
  });
});
