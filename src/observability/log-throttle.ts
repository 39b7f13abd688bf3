/**
 * A warning that must not flood the logs (a broker or a store away for minutes): written at
 * most once per `everyMs`, saying how many occurrences it stands for.
 */
export class LogThrottle {
  private lastAt = Number.NEGATIVE_INFINITY;
  private count = 0;

  constructor(
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one occurrence: the number since the last warning when one is due now, else undefined. */
  due(): number | undefined {
    this.count++;
    const now = this.now();
    if (now - this.lastAt < this.everyMs) return undefined;
    this.lastAt = now;
    const since = this.count;
    this.count = 0;
    return since;
  }
}
