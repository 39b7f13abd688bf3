import type { Admin } from 'kafkajs';
import { RpcError } from '../../src/errors.js';

/**
 * Topic administration. Brokers often run with `auto.create.topics.enable=false` (and
 * where it is on, they would create topics with the broker's partition count), so the
 * transport creates what it uses, explicitly, and waits until every partition has a
 * leader before the first publish or subscribe. Results are cached per topic.
 */
export class KafkaTopics {
  private readonly ready = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: Admin,
    private readonly replicationFactor: number,
  ) {}

  isReady(topic: string): boolean {
    return this.ready.has(topic);
  }

  /** Creates the topic with `partitions` unless it exists, then waits for its leaders. */
  ensure(topic: string, partitions: number): Promise<void> {
    return this.once(topic, async () => {
      const created = await this.admin.createTopics({
        topics: [{ topic, numPartitions: partitions, replicationFactor: this.replicationFactor }],
        waitForLeaders: true,
      });
      // Created a moment ago by another process: its leaders may still be electing.
      if (!created) await this.waitForLeaders(topic);
    });
  }

  /**
   * A reply topic belongs to the instance that reads it and is created by that instance
   * before it sends any request. When it is missing the instance is gone: creating it
   * would leave a topic nobody reads, so the publish fails for good (the inbox then
   * dead-letters the reply as undeliverable).
   */
  requireExisting(topic: string): Promise<void> {
    return this.once(topic, async () => {
      try {
        await this.admin.fetchTopicMetadata({ topics: [topic] });
      } catch (error) {
        if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
        throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `kafka reply topic ${topic} does not exist: its instance is gone`, {
          retriable: false,
          cause: error,
          details: { topic, reason: 'no-such-topic' },
        });
      }
    });
  }

  /** The next offset of every partition: where a new fan-out subscriber starts. */
  forget(topic: string): void {
    this.ready.delete(topic);
  }

  async endOffsets(topic: string): Promise<Array<{ partition: number; offset: string }>> {
    const offsets = await this.admin.fetchTopicOffsets(topic);
    return offsets.map(({ partition, high }) => ({ partition, offset: high }));
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.admin.deleteGroups([groupId]);
  }

  async deleteTopics(topics: readonly string[]): Promise<void> {
    if (topics.length === 0) return;
    for (const topic of topics) this.ready.delete(topic);
    await this.admin.deleteTopics({ topics: [...topics] });
  }

  async disconnect(): Promise<void> {
    await this.admin.disconnect().catch(() => undefined);
  }

  private once(topic: string, work: () => Promise<void>): Promise<void> {
    if (this.ready.has(topic)) return Promise.resolve();
    let running = this.pending.get(topic);
    if (!running) {
      running = work().then(
        () => {
          this.ready.add(topic);
          this.pending.delete(topic);
        },
        (error: unknown) => {
          // Forget failures, so the next publish or subscribe tries again.
          this.pending.delete(topic);
          throw error;
        },
      );
      this.pending.set(topic, running);
    }
    return running;
  }

  private async waitForLeaders(topic: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
      const partitions = topics[0]?.partitions ?? [];
      if (partitions.length > 0 && partitions.every((p) => p.leader >= 0)) return;
      if (attempt >= 50) throw new Error(`kafka topic ${topic} has partitions without a leader`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
