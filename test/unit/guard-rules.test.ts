import { describe, expect, it } from 'vitest';
import { checkCall, collapseChain, DEFAULT_GUARD_LIMITS, decodeFlowState, encodeFlowState, recursionLogLine, type FlowState } from '../../src/guard/index.js';

const NOW = 1_800_000_000_000;
const state = (overrides: Partial<FlowState> = {}): FlowState => ({ startedAt: NOW - 1000, chain: ['a', 'b'], calls: 1, recent: [NOW], idleHops: 0, ...overrides });

describe('guard - collapseChain', () => {
  it.each([
    [[1, 2, 1], [1]],
    [[1, 2, 1, 2], [1, 2]],
    [[1, 2, 1, 2, 1], [1]],
    [[1, 2, 3], [1, 2, 3]],
    [[1, 2, 1, 3], [1, 3]],
    [[1, 2, 1, 3, 1], [1]],
    [[], []],
  ])('guard - collapseChain(%j) is %j', (raw, collapsed) => {
    expect(collapseChain(raw)).toEqual(collapsed);
  });
});

describe('guard - rules', () => {
  const limits = DEFAULT_GUARD_LIMITS;

  it('guard - a call within every limit passes', () => {
    expect(checkCall('a', 'b', state(), NOW, limits)).toBeUndefined();
  });

  it('guard - self-call', () => {
    expect(checkCall('a', 'a', state({ chain: ['a', 'a'] }), NOW, limits)).toMatchObject({ rule: 'self-call', message: 'Agent call rejected: self-calls not allowed' });
  });

  it('guard - depth: 5 passes, 6 is refused; loops do not deepen', () => {
    expect(checkCall('4', '5', state({ chain: ['1', '2', '3', '4', '5'] }), NOW, limits)).toBeUndefined();
    expect(checkCall('5', '6', state({ chain: ['1', '2', '3', '4', '5', '6'] }), NOW, limits)).toMatchObject({
      rule: 'depth',
      message: 'Agent call rejected: effective call depth 6 exceeds limit (max 5)',
      value: 6,
      limit: 5,
    });
    expect(checkCall('2', '1', state({ chain: ['1', '2', '1', '2', '1', '2', '1'] }), NOW, limits)).toBeUndefined();
  });

  it('guard - agents: 10 pass, 11 are refused', () => {
    // A chain that keeps returning to 1 stays shallow but touches many agents.
    const chain = (n: number) => Array.from({ length: n }, (_, i) => ['1', String(i + 2)]).flat();
    expect(checkCall('1', '10', state({ chain: chain(9) }), NOW, limits)).toBeUndefined();
    expect(checkCall('1', '11', state({ chain: chain(10) }), NOW, limits)).toMatchObject({ rule: 'agents', message: 'Agent call rejected: flow involves too many sessions (11, max 10)' });
  });

  it('guard - duration: a flow older than 5 minutes is refused', () => {
    expect(checkCall('a', 'b', state({ startedAt: NOW - 300_000 }), NOW, limits)).toBeUndefined();
    expect(checkCall('a', 'b', state({ startedAt: NOW - 300_001 }), NOW, limits)).toMatchObject({ rule: 'duration', message: 'Agent call rejected: flow timeout (max 5 minutes)' });
  });

  it('guard - rate: 20 calls in a minute pass, the 21st is refused; older calls do not count', () => {
    const times = (n: number, spacing = 1000) => Array.from({ length: n }, (_, i) => NOW - (n - 1 - i) * spacing);
    expect(checkCall('a', 'b', state({ recent: times(20), calls: 20 }), NOW, limits)).toBeUndefined();
    expect(checkCall('a', 'b', state({ recent: times(21), calls: 21 }), NOW, limits)).toMatchObject({ rule: 'rate', message: 'Agent call rejected: call rate limit exceeded (max 20/minute)' });
    expect(checkCall('a', 'b', state({ recent: times(21, 4000), calls: 21 }), NOW, limits)).toBeUndefined();
  });

  it('guard - total: 100 calls pass, the 101st is refused', () => {
    expect(checkCall('a', 'b', state({ calls: 100 }), NOW, limits)).toBeUndefined();
    expect(checkCall('a', 'b', state({ calls: 101 }), NOW, limits)).toMatchObject({ rule: 'total', message: 'Agent call rejected: total call limit exceeded (max 100 per flow)' });
  });

  it('guard - the log line names both agents and the figures', () => {
    const violation = checkCall('5', '6', state({ chain: ['1', '2', '3', '4', '5', '6'] }), NOW, limits)!;
    expect(recursionLogLine('a', 'b', violation)).toBe('[RECURSION] Rejected call a→b: chain depth 6 exceeds max 5');
  });

  it('guard - flow state round-trips through its header; a malformed one is undefined', () => {
    const flow = state({ chain: ['x', 'y'], recent: [NOW - 5, NOW] });
    expect(decodeFlowState(encodeFlowState(flow))).toEqual(flow);
    expect(decodeFlowState('{"s":"soon"}')).toBeUndefined();
    expect(decodeFlowState('not json')).toBeUndefined();
    expect(decodeFlowState(undefined)).toBeUndefined();
  });
});
