import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../src/observability/logger.js';
import type { RpcMetrics } from '../../src/observability/metrics.js';
import type { DeliveryHandler } from '../../src/transport.js';
import { createDelivery, handOver } from '../../src/delivery.js';
import { CommitWatermark } from './commit-watermark.js';

export interface KafkaSubscriptionSettings {
  readonly topic: string;
  readonly groupId: string;
  /** New groups start at the earliest offset (a durable inbox keeps what came before). */
  readonly fromBeginning: boolean;
  readonly maxInflight: number;
  readonly maxWaitTimeInMs: number;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
}

/**
 * One consumer for one topic. Messages of a partition are handed to the handler
 * concurrently (in offset order), up to `maxInflight` unsettled; offsets are committed
 * only up to the contiguous settled prefix (CommitWatermark), so nothing is committed
 * before it was dispatched. A nack redelivers the same message locally after its delay;
 * the commit waits behind it while later messages keep flowing.
 */
export class KafkaSubscription {
  private readonly consumer: Consumer;
  private readonly marks = new Map<number, CommitWatermark>();
  private inflight = 0;
  /** Batches (one per partition being consumed) waiting for a free in-flight slot. */
  private waitingForSlot: Array<() => void> = [];
  private closed = false;
  private commitQueue: Promise<void> = Promise.resolve();

  constructor(
    kafka: Kafka,
    private readonly settings: KafkaSubscriptionSettings,
    private readonly handler: DeliveryHandler,
  ) {
    this.consumer = kafka.consumer({
      groupId: settings.groupId,
      maxWaitTimeInMs: settings.maxWaitTimeInMs,
      minBytes: 1,
      // Short sessions: a dead replica's partitions move on within seconds.
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 10_000,
    });
  }

  /** Resolves once the group is joined and the first fetch ran: offsets are positioned. */
  async start(): Promise<void> {
    const positioned = new Promise<void>((resolve) => {
      const remove = this.consumer.on(this.consumer.events.FETCH, () => {
        remove();
        resolve();
      });
    });
    // A new generation re-reads from the committed offsets: start the watermarks afresh.
    let restarting = false;
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      this.marks.clear();
      if (restarting) this.settings.metrics.transportReconnected?.('kafka');
      restarting = false;
    });
    // kafkajs restarts a consumer after a retriable failure (a broker gone, a lost
    // connection) by itself; one it does not restart stops consuming, which must be seen.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (this.closed) return;
      restarting = payload.restart;
      const level = payload.restart ? 'warn' : 'error';
      this.settings.logger[level]({ err: payload.error, topic: this.settings.topic, groupId: this.settings.groupId, restart: payload.restart }, payload.restart ? 'kafka consumer failed; kafkajs restarts it' : 'kafka consumer stopped for good');
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.settings.topic], fromBeginning: this.settings.fromBeginning });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
    await positioned;
  }

  private async onBatch({ batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload): Promise<void> {
    let mark = this.marks.get(batch.partition);
    if (!mark) {
      mark = new CommitWatermark();
      this.marks.set(batch.partition, mark);
    }
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || this.closed) return;
      while (this.inflight >= this.settings.maxInflight) {
        await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
        await heartbeat();
      }
      mark.track(BigInt(message.offset));
      // Moves the fetch position only; what is committed is decided by the watermark.
      resolveOffset(message.offset);
      this.deliver(batch.partition, message, 1);
    }
  }

  private deliver(partition: number, message: KafkaMessage, attempt: number): void {
    this.inflight++;
    const { topic } = this.settings;
    const delivery = createDelivery({
      body: message.value ?? new Uint8Array(0),
      key: message.key?.toString('utf8'),
      coordinates: { topic, partition, offset: message.offset, deliveryId: `${topic}:${partition}:${message.offset}` },
      attempt,
      onSettle: () => {
        this.inflight--;
        this.waitingForSlot.shift()?.();
      },
      onAck: () => this.advance(partition, BigInt(message.offset)),
      onNack: (delayMs) => {
        if (this.closed) return;
        const again = (): void => this.deliver(partition, message, attempt + 1);
        if (delayMs > 0) setTimeout(again, delayMs).unref();
        else setImmediate(again);
      },
    });
    handOver(this.handler, delivery);
  }

  private advance(partition: number, offset: bigint): void {
    const next = this.marks.get(partition)?.settle(offset);
    if (next === undefined) return;
    const offsets = [{ topic: this.settings.topic, partition, offset: next.toString() }];
    // Commits go out one after another, so a later offset is never overwritten by an earlier one.
    this.commitQueue = this.commitQueue
      .then(() => this.consumer.commitOffsets(offsets))
      .catch((error: unknown) => {
        // After a rebalance the partition may belong to another member, which reads from
        // the last committed offset: the message is redelivered there, not lost.
        this.settings.metrics.transportCommitFailed?.('kafka');
        this.settings.logger.warn({ err: error, topic: this.settings.topic, partition }, 'kafka offset commit failed');
      });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wake of this.waitingForSlot.splice(0)) wake();
    await this.commitQueue;
    await this.consumer.disconnect();
  }
}
