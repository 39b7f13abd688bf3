/**
 * Waits for `work` at most `ms`: true when it settled in time (its rejection is passed on),
 * false when the time ran out (a later rejection is then ignored). For shutdown steps a
 * client library would otherwise retry for minutes against a broker that is gone.
 */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
