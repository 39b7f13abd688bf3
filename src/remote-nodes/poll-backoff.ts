/** Polling a remote session: 500 ms first, then ×1.5 per poll, never more than 5 s apart. */
export const FIRST_POLL_DELAY_MS = 500;
export const POLL_BACKOFF_FACTOR = 1.5;
export const MAX_POLL_DELAY_MS = 5_000;

export function nextPollDelay(current: number): number {
  return Math.min(current * POLL_BACKOFF_FACTOR, MAX_POLL_DELAY_MS);
}
