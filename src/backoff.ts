/**
 * The one retry schedule: exponential from `initialMs` by `factor`, capped at `maxMs`,
 * with jitter taken off the top so replicas that failed together do not retry together.
 */
export interface BackoffPolicy {
  /** Delay before the first retry. */
  readonly initialMs: number;
  /** No delay is longer than this (before jitter). */
  readonly maxMs: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /** 0..1: the delay is `delay × (1 − jitter × random())`. Default 0.2. */
  readonly jitter?: number;
}

/** The delay before retry number `attempt` (1-based). `random` is replaceable for tests. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const factor = policy.factor ?? 2;
  const jitter = policy.jitter ?? 0.2;
  if (!(policy.initialMs >= 0) || !(policy.maxMs >= policy.initialMs)) throw new RangeError('backoff: need 0 <= initialMs <= maxMs');
  if (!(factor >= 1)) throw new RangeError('backoff: factor must be at least 1');
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError('backoff: jitter must be between 0 and 1');
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`backoff: attempt must be a positive integer, got ${String(attempt)}`);
  // factor ** exponent may reach Infinity for a large attempt; the cap takes over then.
  const base = policy.initialMs === 0 ? 0 : Math.min(policy.maxMs, policy.initialMs * factor ** (attempt - 1));
  return Math.round(base * (1 - jitter * random()));
}
