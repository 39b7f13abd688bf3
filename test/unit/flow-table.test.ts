import { describe, expect, it } from 'vitest';
import { FlowTable } from '../../src/guard/flow-table.js';
import type { FlowState } from '../../src/guard/flow-state.js';

const state = (startedAt: number, calls: number, recent: number[] = []): FlowState => ({ startedAt, chain: ['a', 'b'], calls, recent });

describe('guard flow table', () => {
  it('guard flow table - merges what this process recorded of a flow into the state an envelope carried', () => {
    const table = new FlowTable(1_000);
    table.record('f1', state(0, 3, [10, 20]), 20);
    const merged = table.merged('f1', state(0, 1, [10]), 30);
    expect(merged.calls).toBe(3);
    expect(merged.recent).toEqual([10, 20]);
    expect(table.merged('f2', state(0, 1), 30).calls).toBe(1);
  });

  it('guard flow table - a flow is forgotten when it expires, even while younger flows ahead of it keep it from being swept', () => {
    const table = new FlowTable(1_000);
    table.record('young', state(500, 1), 500);
    // A call of an older flow, recorded later: it expires first.
    table.record('old', state(0, 2), 600);
    expect(table.merged('old', state(0, 0), 999).calls).toBe(2);
    expect(table.merged('old', state(0, 0), 1_000).calls).toBe(0);
    expect(table.merged('young', state(500, 0), 1_000).calls).toBe(1);
  });

  it('guard flow table - records sweep expired flows from the oldest on, a few at a time', () => {
    const table = new FlowTable(1_000);
    for (let i = 0; i < 5_000; i++) table.record(`f${i}`, state(i, 1), 0);
    expect(table.size).toBe(5_000);
    // At 3,000 every flow started before 2,000 has expired.
    table.record('later', state(3_000, 1), 3_000);
    expect(table.size).toBe(5_000 - 2_001 + 1);
  });
});
