import type { Admin, Producer, TopicMessages } from 'kafkajs';
import { backoffDelay, type BackoffPolicy } from '../../src/backoff.js';
import { RpcError } from '../../src/errors.js';
import type { OutboundMessage } from '../../src/transport.js';

/**
 * Creating a topic on a broker that has just started can fail with a retriable error
 * while the new topic's metadata spreads (UNKNOWN_TOPIC_OR_PARTITION during the wait for
 * leaders); kafkajs gives up on it at once, so it is tried again here.
 */
const CREATE_TOPIC_RETRY: BackoffPolicy = { initialMs: 100, maxMs: 2_000 };
const CREATE_TOPIC_ATTEMPTS = 5;

interface Pending {
  topic: string;
  message: OutboundMessage;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface PublisherSettings {
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly lingerMs: number;
  readonly publishTimeoutMs: number;
}

/**
 * Topics on demand, and publishes gathered into one `sendBatch` per tick (or per
 * `lingerMs`): at high concurrency one request carries many messages, which is where
 * Kafka's throughput comes from. Each publish still resolves only when the broker acked
 * its batch (acks=all, idempotent producer).
 *
 * Retries are bounded: kafkajs retries a request on its schedule (a bounded count), and a
 * publish not acknowledged within `publishTimeoutMs` fails with EAGENTRPC_PUBLISH_FAILED
 * (retriable) even while kafkajs still tries. Each publish gets that whole allowance, so
 * the inbox's few redeliveries of a reply it could not send span a broker restart.
 */
export class KafkaPublisher {
  private readonly topics = new Map<string, Promise<boolean>>();
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly producer: Producer,
    private readonly admin: Admin,
    private readonly settings: PublisherSettings,
  ) {}

  /**
   * Creates the topic if missing and waits for its leaders. Cached per topic. An ephemeral
   * topic (one instance's replies) gets one partition: nothing is spread over consumers.
   * Resolves true to the first asker when this process created the topic (it had no history).
   */
  ensureTopic(topic: string, ephemeral = false): Promise<boolean> {
    const known = this.topics.get(topic);
    // Only the first asker hears "created": later ones come after it and may find its messages.
    if (known) return known.then(() => false);
    const numPartitions = ephemeral ? 1 : this.settings.partitions;
    const ready = this.createTopic(topic, numPartitions);
    ready.catch(() => this.topics.delete(topic));
    this.topics.set(topic, ready);
    return ready;
  }

  private async createTopic(topic: string, numPartitions: number): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.admin.createTopics({ topics: [{ topic, numPartitions, replicationFactor: this.settings.replicationFactor }], waitForLeaders: true });
      } catch (cause) {
        if ((cause as { retriable?: unknown }).retriable !== true || attempt >= CREATE_TOPIC_ATTEMPTS) {
          throw new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `kafka: creating topic ${topic} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause, details: { topic } });
        }
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(CREATE_TOPIC_RETRY, attempt)));
      }
    }
  }

  publish(topic: string, message: OutboundMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.batch.push({ topic, message, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      if (this.settings.lingerMs > 0) setTimeout(() => void this.flush(), this.settings.lingerMs);
      else setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.batch;
    this.batch = [];
    const byTopic = new Map<string, TopicMessages>();
    try {
      await Promise.all([...new Map(batch.map((p) => [p.topic, p.message.ephemeral === true])).entries()].map(([topic, ephemeral]) => this.ensureTopic(topic, ephemeral)));
      for (const { topic, message } of batch) {
        let entry = byTopic.get(topic);
        if (!entry) {
          entry = { topic, messages: [] };
          byTopic.set(topic, entry);
        }
        entry.messages.push({ key: message.key ?? null, value: Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength) });
      }
      await withTimeout(this.producer.sendBatch({ topicMessages: [...byTopic.values()] }), this.settings.publishTimeoutMs);
      for (const pending of batch) pending.resolve();
    } catch (cause) {
      const { name, message } = cause as Error;
      const error = new RpcError('EAGENTRPC_PUBLISH_FAILED', `kafka publish failed: ${name}: ${message}`, { cause });
      for (const pending of batch) pending.reject(error);
    }
  }
}

/** Rejects with a timeout error once `ms` passed; the work itself goes on (kafkajs cannot cancel a request). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no acknowledgement from the broker within ${ms} ms`), { name: 'PublishTimeout' })), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
