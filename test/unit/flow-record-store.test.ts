import { describe, expect, it } from 'vitest';
import type { FlowCall } from '../../src/flow-recording/flow-record.js';
import { displayStatus, mergeCall } from '../../src/flow-recording/flow-record.js';
import { FlowRecordStore } from '../../src/flow-recording/flow-record-store.js';
import { decodeFlowRecord, encodeFlowRecord } from '../../src/flow-recording/flows-topic.js';
import { sampler } from '../../src/flow-recording/sampling.js';

function clockAt(start: number): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

const call = (correlationId: string, id: string, extra: Partial<FlowCall> = {}): FlowCall => ({ id, correlationId, from: 'a', to: 'b', capability: 'c', startedAt: 1000, ...extra });

describe('flows - records and store', () => {
  it('flows - caller and receiver views of one call merge; a settled side is not undone by a late open one', () => {
    const pending = call('f', 'm1', { call: { status: 'pending' } });
    const handled = call('f', 'm1', { startedAt: 1002, handler: { status: 'ok', startedAt: 1002, durationMs: 5 } });
    const answered = call('f', 'm1', { call: { status: 'ok', latencyMs: 9, usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.5 } } });
    const merged = mergeCall(mergeCall(pending, handled), answered);
    expect(merged).toMatchObject({ startedAt: 1000, call: { status: 'ok', latencyMs: 9 }, handler: { status: 'ok', durationMs: 5 } });
    expect(mergeCall(merged, pending).call?.status).toBe('ok');
    expect(displayStatus(merged)).toBe('ok');
    expect(displayStatus(call('f', 'm2', { call: { status: 'error', errorCode: 'EAGENTRPC_GUARD_REJECTED' } }))).toBe('refused');
    expect(displayStatus(call('f', 'm3', { handler: { status: 'running' } }))).toBe('running');
    expect(displayStatus(call('f', 'm4', { handler: { status: 'refused', dlq: 'auth-rejected' } }))).toBe('dead-lettered');
  });

  it('flows - the store keeps the newest flows within count, age since their last call and calls per flow', () => {
    const clock = clockAt(0);
    const store = new FlowRecordStore(clock, { maxFlows: 2, maxAgeMs: 1000, maxCallsPerFlow: 2 });
    store.put(call('one', 'm1'));
    store.put(call('two', 'm1'));
    store.put(call('one', 'm2'));
    store.put(call('three', 'm1'));
    expect(store.recent().map((f) => f.correlationId)).toEqual(['three', 'two']);
    store.put(call('two', 'm2'));
    store.put(call('two', 'm3'));
    expect(store.get('two')).toMatchObject({ droppedCalls: 1 });
    expect([...store.get('two')!.calls.keys()]).toEqual(['m1', 'm2']);
    clock.advance(600);
    store.put(call('three', 'm2'));
    clock.advance(600);
    // Two went quiet over a second ago; three had a call since.
    expect(store.get('two')).toBeUndefined();
    expect(store.recent().map((f) => f.correlationId)).toEqual(['three']);
  });

  it('flows - listeners of a flow hear its changes until they stop listening', () => {
    const store = new FlowRecordStore(clockAt(0));
    const heard: string[] = [];
    const stop = store.listen('f', (c) => heard.push(`${c.id}:${c.call?.status}`));
    store.put(call('f', 'm1', { call: { status: 'pending' } }));
    store.put(call('other', 'm1'));
    store.put(call('f', 'm1', { call: { status: 'ok', latencyMs: 1 } }));
    stop();
    store.put(call('f', 'm2'));
    expect(heard).toEqual(['m1:pending', 'm1:ok']);
  });

  it('flows - a record survives the wire; anything else on the flows topic is not taken for one', () => {
    const record = call('f', 'm1', { causedBy: 'm0', startedAt: 1795494881231.25, call: { status: 'timeout', latencyMs: 100, errorCode: 'EAGENTRPC_TIMEOUT' } });
    expect(decodeFlowRecord(encodeFlowRecord(record))).toEqual(record);
    expect(decodeFlowRecord(Buffer.from('not json'))).toBeUndefined();
    expect(decodeFlowRecord(Buffer.from(JSON.stringify({ v: 1, call: { ...record, payload: { secret: 1 } } })))).toBeUndefined();
    expect(decodeFlowRecord(Buffer.from(JSON.stringify({ v: 2, call: record })))).toBeUndefined();
    expect(decodeFlowRecord(Buffer.alloc(5000, 32))).toBeUndefined();
  });

  it('flows - sampling keeps a share of flows, the same ones for every sampler', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `01a20bc9-${String(i).padStart(4, '0')}-7000-8000-000000000000`);
    const kept = ids.filter(sampler(0.25));
    expect(kept.length).toBeGreaterThan(350);
    expect(kept.length).toBeLessThan(650);
    expect(ids.filter(sampler(0.25))).toEqual(kept);
    expect(ids.filter(sampler(0))).toEqual([]);
    expect(ids.filter(sampler(1))).toHaveLength(2000);
    expect(() => sampler(1.5)).toThrow(RangeError);
  });
});
