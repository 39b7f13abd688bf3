import type { Logger } from '../logger.js';

/** Distinct reasons tracked in one interval; more than that share one summary. */
const MAX_KEYS = 100;

interface Repeats {
  readonly message: string;
  readonly summary: Record<string, unknown>;
  count: number;
  /** Builds the fields of the latest repeat, for the summary's sample. */
  latest: () => Record<string, unknown>;
}

/**
 * Warnings written once per message would flood the log under a stream of bad input (a
 * line per dead-lettered, refused or failed message). Per reason (`key`) and interval, the
 * first warning is written in full; the repeats are only counted, and when the interval
 * ends one line says how many there were, with a sample (the latest repeat's fields, no
 * stack). So a flood writes at most two lines per reason per interval.
 */
export class RepeatedWarnings {
  private readonly seen = new Map<string, Repeats>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    readonly intervalMs: number,
  ) {}

  /**
   * Warns now if `key` was not warned about in this interval, else counts a repeat.
   * `summary` names the reason (kind, reason, code), `fields` builds the full line.
   */
  warn(key: string, summary: Record<string, unknown>, fields: () => Record<string, unknown>, message: string): void {
    if (!this.logger.isLevelEnabled('warn')) return;
    let repeats = this.seen.get(key);
    if (repeats === undefined && this.seen.size >= MAX_KEYS) {
      key = 'other';
      repeats = this.seen.get(key);
      summary = { reason: 'other' };
      message = 'repeated warnings of other reasons';
    }
    if (repeats !== undefined) {
      repeats.count++;
      repeats.latest = fields;
      return;
    }
    this.seen.set(key, { message, summary, count: 0, latest: fields });
    this.logger.warn(fields(), message);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes the summaries of the interval now, and starts a new one. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const seen = [...this.seen.values()];
    this.seen.clear();
    for (const repeats of seen) {
      if (repeats.count === 0) continue;
      const { err: _err, ...sample } = repeats.latest();
      this.logger.warn(
        { ...repeats.summary, repeated: repeats.count, intervalMs: this.intervalMs, sample },
        `${repeats.message} — repeated ${repeats.count} more times in ${this.intervalMs} ms (summary)`,
      );
    }
  }
}
