/** Time source, injectable so tests of deadlines and flow ages need no real waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
