import type { Message, Producer, TopicMessages } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import type { OutboundMessage } from '../../src/transport.js';

interface Pending {
  readonly topic: string;
  readonly message: Message;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface PublisherSettings {
  readonly lingerMs: number;
  readonly maxBatchBytes: number;
  readonly maxPendingPublishes: number;
}

/** Makes topics ready for publishing: created, or checked to exist. */
export interface TopicPreparer {
  /** Undefined when the topic is known to be ready. */
  prepare(topic: string): Promise<void> | undefined;
  /** After a failed send: check the topic again next time (it may have been deleted). */
  forget(topic: string): void;
}

/** Where the publisher gets its producer; a producer that failed a send is discarded. */
export interface ProducerSource {
  get(): Promise<Producer>;
  discard(producer: Producer): void;
}

/**
 * Publishes go out in batches, one produce request at a time: whatever is published while
 * a request is in flight is sent together in the next one (one `sendBatch`, at most
 * `maxBatchBytes`). kafkajs serialises an idempotent producer's requests per broker
 * anyway; doing it here keeps them from queueing on its lock (which times out after 65 s)
 * and turns concurrency into batch size, where Kafka's throughput comes from. Each publish
 * resolves only when the broker acknowledged its batch (acks=all).
 *
 * A failed request discards its producer: kafkajs rolls the sequence numbers back after a
 * failure, so the same producer could reuse numbers of a batch the broker did write, and
 * the broker would take the next batch for a duplicate and drop it. A new producer has a
 * new producer id. A batch refused for a non-retriable reason (a message too large) is
 * sent again message by message, so only the message at fault fails.
 */
export class KafkaPublisher {
  private queue: Pending[] = [];
  private head = 0;
  private inflight = 0;
  private sending = false;
  private scheduled = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly producers: ProducerSource,
    private readonly topics: TopicPreparer,
    private readonly settings: PublisherSettings,
  ) {}

  private get waiting(): number {
    return this.queue.length - this.head;
  }

  publish(topic: string, outbound: OutboundMessage): Promise<void> {
    if (this.waiting + this.inflight >= this.settings.maxPendingPublishes) {
      const { maxPendingPublishes } = this.settings;
      return Promise.reject(
        new RpcError('EAGENTRPC_BUSY', `kafka transport holds ${maxPendingPublishes} unacknowledged publishes`, { details: { topic, maxPendingPublishes } }),
      );
    }
    // A copy: the caller may reuse its buffer before the batch is encoded.
    const message: Message = { key: outbound.key ?? null, value: Buffer.from(outbound.body) };
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, message, bytes: outbound.body.byteLength + (outbound.key?.length ?? 0), resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything accepted so far has its outcome. */
  drained(): Promise<void> {
    if (!this.sending && !this.scheduled && this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.sending || this.scheduled) return;
    this.scheduled = true;
    const run = (): void => {
      this.scheduled = false;
      void this.pump();
    };
    // One event-loop turn (or lingerMs) gathers the publishes of concurrent handlers.
    if (this.settings.lingerMs > 0) setTimeout(run, this.settings.lingerMs);
    else setImmediate(run);
  }

  private async pump(): Promise<void> {
    this.sending = true;
    while (this.waiting > 0) {
      const batch = this.take();
      this.inflight = batch.length;
      await this.send(batch);
      this.inflight = 0;
    }
    this.sending = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private take(): Pending[] {
    const batch: Pending[] = [];
    let bytes = 0;
    while (this.head < this.queue.length) {
      const next = this.queue[this.head] as Pending;
      if (batch.length > 0 && bytes + next.bytes > this.settings.maxBatchBytes) break;
      batch.push(next);
      bytes += next.bytes;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  private async send(batch: Pending[]): Promise<void> {
    const ready = await this.prepareTopics(batch);
    if (ready.length === 0) return;
    const byTopic = new Map<string, TopicMessages>();
    for (const { topic, message } of ready) {
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { topic, messages: [] }));
      entry.messages.push(message);
    }
    let producer: Producer | undefined;
    try {
      producer = await this.producers.get();
      await producer.sendBatch({ topicMessages: [...byTopic.values()], acks: -1 });
    } catch (cause) {
      if (producer) this.producers.discard(producer);
      for (const topic of byTopic.keys()) this.topics.forget(topic);
      if (producer && ready.length > 1 && isPermanent(cause)) {
        for (const pending of ready) await this.send([pending]);
        return;
      }
      const error = publishFailed(cause);
      for (const pending of ready) pending.reject(error);
      return;
    }
    for (const pending of ready) pending.resolve();
  }

  /** Topics not known to be ready are prepared first; a topic that fails takes only its own messages down. */
  private async prepareTopics(batch: Pending[]): Promise<Pending[]> {
    const preparing = new Map<string, Promise<void>>();
    for (const { topic } of batch) {
      if (preparing.has(topic)) continue;
      const work = this.topics.prepare(topic);
      if (work) preparing.set(topic, work);
    }
    if (preparing.size === 0) return batch;
    const failed = new Map<string, unknown>();
    await Promise.all([...preparing].map(([topic, work]) => work.catch((error: unknown) => void failed.set(topic, error))));
    if (failed.size === 0) return batch;
    return batch.filter((pending) => {
      const error = failed.get(pending.topic);
      if (error === undefined) return true;
      pending.reject(error instanceof RpcError ? error : publishFailed(error));
      return false;
    });
  }
}

interface KafkaJsError {
  readonly name?: string;
  readonly retriable?: boolean;
  readonly cause?: KafkaJsError;
}

/**
 * A failure that sending again cannot fix (a message too large, an invalid topic name), as
 * opposed to retries that ran out (kafkajs marks those non-retriable too).
 */
function isPermanent(error: unknown): boolean {
  let e = error as KafkaJsError | undefined;
  for (let depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (e.name === 'KafkaJSNumberOfRetriesExceeded') return false;
  }
  return (error as KafkaJsError | undefined)?.retriable === false;
}

function publishFailed(cause: unknown): RpcError {
  return new RpcError('EAGENTRPC_PUBLISH_FAILED', `kafka publish failed: ${(cause as Error)?.message ?? String(cause)}`, {
    cause,
    retriable: !isPermanent(cause),
  });
}
