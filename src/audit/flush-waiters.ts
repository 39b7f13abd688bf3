interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** The `flush()` callers of an audit log, each waiting for the records appended before its call. */
export class FlushWaiters {
  private waiters: Waiter[] = [];

  get any(): boolean {
    return this.waiters.length > 0;
  }

  /** Resolves once `release` reaches `seq`; rejects with the log's failure. */
  waitFor(seq: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Releases every caller whose records up to `seq` the head file now names. */
  release(seq: number): void {
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= seq) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  rejectAll(failure: Error): void {
    for (const waiter of this.waiters) waiter.reject(failure);
    this.waiters = [];
  }
}
