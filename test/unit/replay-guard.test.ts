import { describe, expect, it } from 'vitest';
import { ReplayGuard } from '../../src/auth/replay-guard.js';

describe('replay guard', () => {
  it('replay guard - the same key from another broker message is a replay, from the same one a redelivery', () => {
    const guard = new ReplayGuard(100);
    expect(guard.check('m1|1000', 'topic#1', 301_000, 1000)).toBe('fresh');
    expect(guard.check('m1|1000', 'topic#1', 301_000, 2000)).toBe('redelivery');
    expect(guard.check('m1|1000', 'topic#2', 301_000, 3000)).toBe('replayed');
    expect(guard.check('m2|1000', 'topic#3', 301_000, 3000)).toBe('fresh');
  });

  it('replay guard - entries are forgotten once their window has passed', () => {
    const guard = new ReplayGuard(100);
    guard.check('a', 'd1', 10_000, 0);
    guard.check('b', 'd2', 20_000, 0);
    expect(guard.check('c', 'd3', 30_000, 15_000)).toBe('fresh');
    expect(guard.size).toBe(2);
    expect(guard.check('a', 'd9', 40_000, 15_000)).toBe('fresh');
  });

  it('replay guard - at capacity the oldest entry makes room', () => {
    const guard = new ReplayGuard(2);
    guard.check('a', 'd1', 1e9, 0);
    guard.check('b', 'd2', 1e9, 0);
    guard.check('c', 'd3', 1e9, 0);
    expect(guard.size).toBe(2);
    expect(guard.check('a', 'd4', 1e9, 0)).toBe('fresh');
    expect(guard.check('c', 'd5', 1e9, 0)).toBe('replayed');
  });
});
