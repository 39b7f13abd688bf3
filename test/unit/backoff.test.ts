import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/backoff.js';

const noJitter = () => 0;

describe('backoff', () => {
  it('backoff - grows by the factor from initialMs and stops at maxMs', () => {
    const policy = { initialMs: 100, maxMs: 1_000, factor: 2 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(policy, attempt, noJitter))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffDelay({ initialMs: 100, maxMs: 10_000, factor: 1.5 }, 3, noJitter)).toBe(225);
  });

  it('backoff - the default factor is 2', () => {
    expect(backoffDelay({ initialMs: 50, maxMs: 10_000 }, 4, noJitter)).toBe(400);
  });

  it('backoff - jitter takes up to its share off the delay, never adds to it', () => {
    const policy = { initialMs: 1_000, maxMs: 1_000, jitter: 0.5 };
    expect(backoffDelay(policy, 1, () => 0)).toBe(1_000);
    expect(backoffDelay(policy, 1, () => 0.5)).toBe(750);
    expect(backoffDelay(policy, 1, () => 0.999999)).toBe(500);
  });

  it('backoff - the default jitter is 0.2', () => {
    expect(backoffDelay({ initialMs: 1_000, maxMs: 1_000 }, 1, () => 1)).toBe(800);
  });

  it('backoff - a huge attempt number stays at maxMs', () => {
    expect(backoffDelay({ initialMs: 1, maxMs: 5_000, factor: 3 }, 100_000, noJitter)).toBe(5_000);
  });

  it('backoff - bad policies and attempts throw RangeError naming the field', () => {
    expect(() => backoffDelay({ initialMs: 10, maxMs: 5 }, 1)).toThrow(RangeError);
    expect(() => backoffDelay({ initialMs: 10, maxMs: 50, factor: 0.5 }, 1)).toThrow(/factor/);
    expect(() => backoffDelay({ initialMs: 10, maxMs: 50, jitter: 2 }, 1)).toThrow(/jitter/);
    expect(() => backoffDelay({ initialMs: 10, maxMs: 50 }, 0)).toThrow(/attempt/);
  });
});
