import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../src/trace-context.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

interface Hop {
  agent: string;
  traceparent: string;
  next?: Hop;
}

describe('trace context', () => {
  it('trace - a traceparent is continued across three hops: one trace id, a new span per hop', async () => {
    const [a, b, c] = [await fleet.node('a'), await fleet.node('b'), await fleet.node('c')];
    c.handle('hop', (_input, ctx): Hop => ({ agent: 'c', traceparent: ctx.envelope.headers!['traceparent']! }));
    b.handle('hop', async (_input, ctx): Promise<Hop> => {
      const next = await b.requestAgent<Hop>({ to: 'c', capability: 'hop', payload: null });
      return { agent: 'b', traceparent: ctx.envelope.headers!['traceparent']!, next: next.response! };
    });
    a.handle('hop', async (_input, ctx): Promise<Hop> => {
      const next = await a.requestAgent<Hop>({ to: 'b', capability: 'hop', payload: null });
      return { agent: 'a', traceparent: ctx.envelope.headers!['traceparent']!, next: next.response! };
    });
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const client = await fleet.node('client');
    const result = await client.requestAgent<Hop>({ to: 'a', capability: 'hop', payload: null, headers: { traceparent: incoming } });
    const hops: Hop[] = [];
    for (let hop: Hop | undefined = result.response; hop; hop = hop.next) hops.push(hop);
    expect(hops.map((h) => h.agent)).toEqual(['a', 'b', 'c']);
    const parsed = hops.map((h) => parseTraceparent(h.traceparent)!);
    expect(parsed.map((p) => p.traceId)).toEqual(Array(3).fill('4bf92f3577b34da6a3ce929d0e0e4736'));
    expect(new Set([...parsed.map((p) => p.parentId), '00f067aa0ba902b7']).size).toBe(4);
    expect(parsed.every((p) => p.flags === '01')).toBe(true);
  });

  it('trace - a call from outside any trace starts one; an invalid traceparent is replaced', async () => {
    const svc = await fleet.node('svc');
    svc.handle('tp', (_input, ctx) => ctx.envelope.headers!['traceparent']);
    const client = await fleet.node('client');
    const fresh = (await client.requestAgent<string>({ to: 'svc', capability: 'tp', payload: null })).response!;
    expect(parseTraceparent(fresh)).toBeDefined();
    const invalid = (await client.requestAgent<string>({ to: 'svc', capability: 'tp', payload: null, headers: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' } })).response!;
    expect(parseTraceparent(invalid)?.traceId).not.toBe('0'.repeat(32));
  });
});
