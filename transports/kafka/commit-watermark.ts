/**
 * Per partition, the offsets handed to the handler in order, and which of them are
 * settled. Deliveries finish out of order (they run concurrently); Kafka only stores one
 * committed offset per partition, so the commit may only move past a message once every
 * message before it is settled too. `settle` returns the new offset to commit (the next
 * offset to read) when the contiguous settled prefix grew, otherwise undefined.
 */
export class CommitWatermark {
  private readonly offsets: bigint[] = [];
  private readonly settled = new Set<bigint>();
  private head = 0;

  track(offset: bigint): void {
    this.offsets.push(offset);
  }

  settle(offset: bigint): bigint | undefined {
    this.settled.add(offset);
    let next: bigint | undefined;
    while (this.head < this.offsets.length && this.settled.has(this.offsets[this.head] as bigint)) {
      const done = this.offsets[this.head++] as bigint;
      this.settled.delete(done);
      next = done + 1n;
    }
    if (this.head > 1024 && this.head * 2 > this.offsets.length) {
      this.offsets.splice(0, this.head);
      this.head = 0;
    }
    return next;
  }

  /** Offsets handed out and not yet settled (or waiting behind an unsettled one). */
  get pending(): number {
    return this.offsets.length - this.head;
  }
}
