const MAX_RETRY_DELAY_MS = 30_000;

/** Exponential backoff for redeliveries: base, 2×base, 4×base … capped at 30 s. */
export function retryDelay(baseMs: number, attempt: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
}
