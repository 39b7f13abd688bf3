import { describe, expect, it } from 'vitest';
import { deferDelay } from '../../src/rpc/redelivery.js';

const limits = { retryDelayMs: 100 };
const LEASE = 300_000;
/** Between 80% and 100% of `ms`: the shared jitter takes up to 20% off. */
const about = (ms: number) => ({ min: Math.round(ms * 0.8), max: ms });

describe('redelivery - defer delay', () => {
  it('redelivery - a deferred delivery looks again after about as long as the run has gone, at least retryDelayMs', () => {
    for (const [heldFor, expected] of [
      [0, 100],
      [40, 100],
      [400, 400],
    ] as const) {
      const delay = deferDelay(limits, LEASE, LEASE - heldFor);
      expect(delay).toBeGreaterThanOrEqual(about(expected).min);
      expect(delay).toBeLessThanOrEqual(about(expected).max);
    }
  });

  it('redelivery - a long run is looked at once a second, and never past the end of its lease', () => {
    const long = deferDelay(limits, LEASE, 60_000);
    expect(long).toBeGreaterThanOrEqual(800);
    expect(long).toBeLessThanOrEqual(1_000);
    expect(deferDelay(limits, LEASE, 30)).toBeLessThanOrEqual(30);
    expect(deferDelay(limits, LEASE, 0)).toBe(1);
  });

  it('redelivery - a claim of unknown lease is looked at after retryDelayMs', () => {
    expect(deferDelay(limits, LEASE, undefined)).toBeLessThanOrEqual(100);
  });
});
