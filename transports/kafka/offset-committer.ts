import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';

export interface OffsetCommitterSettings {
  readonly topic: string;
  /** At most one commit request per this many ms; what advances meanwhile is coalesced. */
  readonly intervalMs: number;
  readonly commit: (offsets: TopicPartitionOffsetAndMetadata[]) => Promise<void>;
  readonly onFailure: (error: unknown, offsets: TopicPartitionOffsetAndMetadata[]) => void;
}

/**
 * Commits the offsets of one topic, coalesced: per partition only the newest offset, one
 * request at a time, at most one per `intervalMs`. At high rates that is one commit per
 * interval instead of one per message, and a later offset is never overwritten by an
 * earlier one.
 *
 * Commits go out only while the consumer runs: kafkajs drops a commit silently when its
 * runner has not started (or throws when `consumer.run` has not been called), so offsets
 * gathered before then wait until `resume()`.
 */
export class OffsetCommitter {
  private next = new Map<number, string>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastCommitAt = 0;
  private active = false;
  private readonly flushWaiters: Array<() => void> = [];

  constructor(private readonly settings: OffsetCommitterSettings) {}

  /** `offset` is the next offset to read: everything before it is settled. */
  set(partition: number, offset: string): void {
    this.next.set(partition, offset);
    this.schedule();
  }

  /** Like `set`, unless a newer offset of the partition already waits. */
  setIfAbsent(partition: number, offset: string): void {
    if (!this.next.has(partition)) this.set(partition, offset);
  }

  /** The consumer runs (it fetched): commits may go out. */
  resume(): void {
    this.active = true;
    this.schedule();
  }

  /** The consumer stopped (a crash, close): commits wait for `resume()`. */
  suspend(): void {
    this.active = false;
  }

  /** A new group generation re-reads from the committed offsets: what the old one gathered is dropped. */
  reset(): void {
    this.next.clear();
  }

  /** Commits what was gathered now, without waiting for the interval; resolves when done (or failed). */
  async flush(): Promise<void> {
    while (this.active) {
      this.clearTimer();
      if (this.running) await this.running;
      else if (this.next.size > 0) this.running = this.run();
      else return;
    }
  }

  /** Resolves once nothing gathered so far is waiting to be committed (committed or failed). */
  committed(): Promise<void> {
    if (this.next.size === 0 && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  close(): void {
    this.active = false;
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (!this.active || this.running || this.timer || this.next.size === 0) return;
    const wait = this.lastCommitAt + this.settings.intervalMs - Date.now();
    if (wait <= 0) {
      this.running = this.run();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    while (this.active && this.next.size > 0) {
      const offsets = [...this.next].map(([partition, offset]) => ({ topic: this.settings.topic, partition, offset }));
      this.next = new Map();
      this.lastCommitAt = Date.now();
      try {
        await this.settings.commit(offsets);
      } catch (error) {
        // The partition may have moved to another member, which reads from the last
        // committed offset: those messages are delivered again there, not lost.
        this.settings.onFailure(error, offsets);
      }
      if (this.settings.intervalMs > 0) break;
    }
    this.running = undefined;
    if (this.next.size === 0) for (const wake of this.flushWaiters.splice(0)) wake();
    else this.schedule();
  }
}
