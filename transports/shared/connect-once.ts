/**
 * `connect()` for broker transports: concurrent callers share one attempt; a failed
 * attempt is forgotten, so the next call tries again instead of failing forever.
 */
export function connectOnce(open: () => Promise<void>): () => Promise<void> {
  let attempt: Promise<void> | undefined;
  return () => {
    attempt ??= open().catch((error: unknown) => {
      attempt = undefined;
      throw error;
    });
    return attempt;
  };
}
