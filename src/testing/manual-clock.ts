import type { Clock } from '../clock.js';

/** A clock that moves only when told: deadlines, flow ages and windows without real waiting. */
export class ManualClock implements Clock {
  constructor(private current = Date.now()) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`ManualClock.advance: ms must be a non-negative number, got ${String(ms)}`);
    this.current += ms;
  }
}
