import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';
import type { Logger } from '../../src/observability/logger.js';

/**
 * Commits offsets of one topic, one request at a time: what advances while a commit is in
 * flight is gathered and sent as the next one, per partition only the newest offset. At
 * high rates that is one commit per round trip instead of one per message, and a later
 * offset is never overwritten by an earlier one.
 */
export class OffsetCommitter {
  private next = new Map<number, string>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly topic: string,
    private readonly commit: (offsets: TopicPartitionOffsetAndMetadata[]) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** `offset` is the next offset to read: everything before it is settled. */
  set(partition: number, offset: string): void {
    this.next.set(partition, offset);
    this.running ??= this.run();
  }

  /** A new group generation: offsets gathered for the old one are not committed. */
  reset(): void {
    this.next.clear();
  }

  /** Resolves once every gathered offset was committed (or failed). */
  async flush(): Promise<void> {
    await this.running;
  }

  private async run(): Promise<void> {
    while (this.next.size > 0) {
      const offsets = [...this.next].map(([partition, offset]) => ({ topic: this.topic, partition, offset }));
      this.next = new Map();
      try {
        await this.commit(offsets);
      } catch (error) {
        // The partition may have moved to another member, which reads from the last
        // committed offset: those messages are delivered again there, not lost.
        if (this.logger.isLevelEnabled('warn')) this.logger.warn({ err: error, topic: this.topic, offsets }, 'kafka offset commit failed');
      }
    }
    this.running = undefined;
  }
}
