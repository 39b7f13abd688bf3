import { backoffDelay, type BackoffPolicy } from '../backoff.js';

/** Polling a remote session: 500 ms first, then ×1.5 per poll, never more than 5 s apart (less up to 20% jitter). */
export const POLL_BACKOFF: BackoffPolicy = { initialMs: 500, factor: 1.5, maxMs: 5_000 };

/** Retrying the create POST: 100, 200, 400 ms (less up to 20% jitter). */
export const CREATE_RETRY_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 400 };

/** The wait before poll number `poll` (1-based). */
export function pollDelay(poll: number, random?: () => number): number {
  return backoffDelay(POLL_BACKOFF, poll, random);
}
