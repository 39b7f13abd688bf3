/**
 * How often each unacked message of a subscription was handed out, so that a message Kafka
 * delivers again inside this process (its partition was re-read after a rebalance) goes
 * on counting instead of starting at 1 — the inbox dead-letters by that count. Entries
 * exist only for messages handed out and not acked, and go with partitions this member
 * no longer owns; a new process starts counting at 1 again.
 */
export class DeliveryAttempts {
  private readonly byPartition = new Map<number, Map<string, number>>();

  /** The attempt number of the delivery about to be handed out. */
  next(partition: number, offset: string): number {
    let counts = this.byPartition.get(partition);
    if (!counts) this.byPartition.set(partition, (counts = new Map()));
    const attempt = (counts.get(offset) ?? 0) + 1;
    counts.set(offset, attempt);
    return attempt;
  }

  forget(partition: number, offset: string): void {
    this.byPartition.get(partition)?.delete(offset);
  }

  /** After a rebalance: counts of partitions that went to other members are dropped. */
  retain(partitions: readonly number[]): void {
    for (const partition of this.byPartition.keys()) {
      if (!partitions.includes(partition)) this.byPartition.delete(partition);
    }
  }
}
