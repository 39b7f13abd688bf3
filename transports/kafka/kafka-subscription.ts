import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../src/logger.js';
import type { RpcMetrics } from '../../src/observability/index.js';
import type { DeliveryHandler } from '../../src/transport.js';
import { createDelivery, handOver } from '../../src/delivery.js';
import { CommitWatermark } from './commit-watermark.js';
import { retryingGroupSetup } from './group-setup-retry.js';
import { settleWithin } from '../shared/settle-within.js';
import { OffsetCommitter } from './offset-committer.js';

export interface KafkaSubscriptionSettings {
  readonly topic: string;
  readonly groupId: string;
  /** New groups start at the earliest offset (a durable inbox keeps what came before). */
  readonly fromBeginning: boolean;
  /**
   * A group of this subscription's own (fan-out, replies): where it starts, committed once
   * it runs, so a consumer that rejoins after a crash goes on from there instead of
   * jumping to the then-latest offset. Undefined for a shared group.
   */
  readonly startOffsets?: () => Promise<Array<{ partition: number; offset: string }>>;
  readonly maxInflight: number;
  readonly maxWaitTimeInMs: number;
  readonly commitIntervalMs: number;
  /** The group's wait for a consumer that stopped heartbeating, and the heartbeat interval. */
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
  /** Hears when this consumer fails (kafkajs restarts it, or not) and when it has rejoined its group. */
  readonly connection?: { lost(part: object): void; back(part: object): void };
}

/**
 * One consumer for one topic. Messages of a partition are handed to the handler
 * concurrently (in offset order), up to `maxInflight` unsettled; at the limit the topic is
 * paused (the consumer stays in its group) and resumed when a delivery settles. Offsets
 * are committed only up to the contiguous settled prefix (CommitWatermark), coalesced
 * (OffsetCommitter), so nothing is committed before it was dispatched. A nack redelivers
 * the same message locally after its delay (attempt + 1; a defer keeps the attempt); the
 * commit waits behind it while later
 * messages keep flowing.
 */
export class KafkaSubscription {
  private readonly consumer: Consumer;
  private readonly committer: OffsetCommitter;
  /** Per partition, for the current group generation; replaced when the group is joined again. */
  private marks = new Map<number, CommitWatermark>();
  private inflight = 0;
  private paused = false;
  private closed = false;
  /** Start offsets not yet committed, by partition (see KafkaSubscriptionSettings.startOffsets). */
  private readonly startPending = new Map<number, string>();
  private startCommitted: (() => void) | undefined;
  /** Between a consumer failure and its rejoin: the broker is not answering this consumer. */
  private failed = false;
  private abortStart: ((error: unknown) => void) | undefined;

  constructor(
    kafka: Kafka,
    private readonly settings: KafkaSubscriptionSettings,
    private readonly handler: DeliveryHandler,
  ) {
    this.consumer = kafka.consumer({
      groupId: settings.groupId,
      maxWaitTimeInMs: settings.maxWaitTimeInMs,
      minBytes: 1,
      allowAutoTopicCreation: false,
      // Short sessions: a dead replica's partitions (or a killed instance's, when it
      // restarts) move on within seconds. A rebalance waits for members as long as a
      // session lasts, so a dead member is dropped by its session, not by the rebalance.
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      rebalanceTimeout: Math.max(10_000, settings.sessionTimeoutMs),
    });
    this.committer = new OffsetCommitter({
      topic: settings.topic,
      intervalMs: settings.commitIntervalMs,
      commit: (offsets) => this.commit(offsets),
      onFailure: (error, offsets) => {
        // After a rebalance the partition may belong to another member, which reads from
        // the last committed offset: the messages are redelivered there, not lost.
        this.settings.metrics.transportCommitFailed?.('kafka');
        this.settings.logger.warn({ err: error, topic: settings.topic, offsets }, 'kafka offset commit failed');
      },
    });
  }

  get groupId(): string {
    return this.settings.groupId;
  }

  /** False while the consumer has failed and not rejoined its group (the broker is gone or unreachable). */
  get reachable(): boolean {
    return !this.failed;
  }

  /**
   * Resolves once the group is joined and the first fetch ran (offsets are positioned) and,
   * for a group of its own, its start offsets are committed. A group coordinator that is
   * still loading (a broker just started) is waited for on the backoff schedule.
   */
  async start(): Promise<void> {
    const { events } = this.consumer;
    const positioned = new Promise<void>((resolve, reject) => {
      const stopWaiting = (): void => {
        removeFetch();
        removeCrash();
        this.abortStart = undefined;
      };
      const removeFetch = this.consumer.on(events.FETCH, () => (stopWaiting(), resolve()));
      // kafkajs restarts a consumer after a retriable failure (the coordinator still
      // loading); only one it gives up on fails the subscribe.
      const removeCrash = this.consumer.on(events.CRASH, ({ payload }) => {
        if (payload.restart) return;
        stopWaiting();
        reject(payload.error);
      });
      this.abortStart = (error) => (stopWaiting(), reject(error));
    });
    positioned.catch(() => undefined);
    this.listen();
    const { topic, fromBeginning, groupId } = this.settings;
    const retrying = <T>(what: string, work: () => Promise<T>): Promise<T> => retryingGroupSetup(work, () => this.closed, { what, topic, groupId, logger: this.settings.logger });
    await retrying('connect', () => this.consumer.connect());
    await retrying('subscribe', () => this.consumer.subscribe({ topics: [topic], fromBeginning }));
    const start = this.settings.startOffsets;
    const committed = start ? new Promise<void>((resolve) => (this.startCommitted = resolve)) : Promise.resolve();
    if (start) for (const { partition, offset } of await retrying('start offsets', start)) this.startPending.set(partition, offset);
    if (this.startPending.size === 0) this.startCommitted?.();
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
    await positioned;
    await committed;
  }

  private listen(): void {
    const { events } = this.consumer;
    let restarting = false;
    this.consumer.on(events.GROUP_JOIN, () => {
      // A new generation re-reads from the committed offsets: deliveries of the old one
      // still settle, but no longer move a watermark, and what it gathered is not committed.
      this.marks = new Map();
      this.committer.reset();
      for (const [partition, offset] of this.startPending) this.committer.set(partition, offset);
      // A consumer restarted after a crash has forgotten that it was paused.
      if (this.paused) this.setPaused(true);
      if (restarting) this.settings.metrics.transportReconnected?.('kafka');
      restarting = false;
      this.failed = false;
      this.settings.connection?.back(this);
    });
    // A rebalance is starting: this generation may still commit, so what was acked is
    // committed now rather than delivered again to the partition's next owner.
    this.consumer.on(events.REBALANCING, () => void this.committer.flush());
    // kafkajs drops a commit while its runner is not running; it runs once it fetches.
    this.consumer.on(events.FETCH_START, () => this.committer.resume());
    this.consumer.on(events.STOP, () => this.committer.suspend());
    // kafkajs restarts a consumer after a retriable failure (a broker gone, a lost
    // connection) by itself; one it does not restart stops consuming, which must be seen.
    this.consumer.on(events.CRASH, ({ payload }) => {
      this.committer.suspend();
      if (this.closed) return;
      this.failed = true;
      restarting = payload.restart;
      this.settings.connection?.lost(this);
      const level = payload.restart ? 'warn' : 'error';
      this.settings.logger[level]({ err: payload.error, topic: this.settings.topic, groupId: this.settings.groupId, restart: payload.restart }, payload.restart ? 'kafka consumer failed; kafkajs restarts it' : 'kafka consumer stopped for good');
    });
  }

  private async commit(offsets: Array<{ topic: string; partition: number; offset: string }>): Promise<void> {
    try {
      await this.consumer.commitOffsets(offsets);
    } catch (error) {
      // The start must be committed before subscribe resolves: it goes out again.
      for (const [partition, offset] of this.startPending) this.committer.setIfAbsent(partition, offset);
      throw error;
    }
    if (this.startPending.size === 0) return;
    for (const { partition } of offsets) this.startPending.delete(partition);
    if (this.startPending.size === 0) this.startCommitted?.();
  }

  private async onBatch({ batch, isRunning, isStale, resolveOffset }: EachBatchPayload): Promise<void> {
    let mark = this.marks.get(batch.partition);
    if (!mark) {
      mark = new CommitWatermark();
      this.marks.set(batch.partition, mark);
    }
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || this.closed) return;
      // At the limit the topic is paused instead of holding the batch: the consumer keeps
      // heartbeating, and the rest of the batch is fetched again, from the last resolved
      // offset, once a delivery settles.
      if (this.inflight >= this.settings.maxInflight) return this.setPaused(true);
      mark.track(BigInt(message.offset));
      // Moves the fetch position only; what is committed is decided by the watermark.
      resolveOffset(message.offset);
      this.deliver(batch.partition, message, 1, mark);
    }
  }

  private deliver(partition: number, message: KafkaMessage, attempt: number, mark: CommitWatermark): void {
    this.inflight++;
    const { topic } = this.settings;
    const delivery = createDelivery({
      body: message.value ?? new Uint8Array(0),
      key: message.key?.toString('utf8'),
      coordinates: { topic, partition, offset: message.offset, deliveryId: `${topic}:${partition}:${message.offset}` },
      attempt,
      onSettle: () => {
        this.inflight--;
        if (this.paused && !this.closed && this.inflight < this.settings.maxInflight) this.setPaused(false);
      },
      onAck: () => this.advance(partition, mark, BigInt(message.offset)),
      onNack: (delayMs) => this.redeliver(partition, message, attempt + 1, mark, delayMs),
      // Deferred (another run holds its claim): the same again later, the attempt not counted.
      onDefer: (delayMs) => this.redeliver(partition, message, attempt, mark, delayMs),
    });
    handOver(this.handler, delivery);
  }

  /** Hands a settled-but-not-acked message over again locally; its commit waits behind it. */
  private redeliver(partition: number, message: KafkaMessage, attempt: number, mark: CommitWatermark, delayMs: number): void {
    if (this.closed) return;
    const again = (): void => this.deliver(partition, message, attempt, mark);
    if (delayMs > 0) setTimeout(again, delayMs).unref();
    else setImmediate(again);
  }

  private advance(partition: number, mark: CommitWatermark, offset: bigint): void {
    // An ack from a generation before the last rejoin: Kafka delivers that message again.
    if (this.marks.get(partition) !== mark) return;
    const next = mark.settle(offset);
    if (next !== undefined) this.committer.set(partition, next.toString());
  }

  private setPaused(paused: boolean): void {
    this.paused = paused;
    const topics = [{ topic: this.settings.topic }];
    try {
      if (paused) this.consumer.pause(topics);
      else this.consumer.resume(topics);
    } catch {
      // No consumer group between a crash and its restart: the next GROUP_JOIN pauses it again.
    }
  }

  /**
   * Stops fetching, commits what was acked, leaves the group — for at most the session
   * timeout: with the broker gone, kafkajs retries the commit and the leave for minutes,
   * and past the session timeout the group has dropped this member anyway. The client's
   * retries still running then end on their own.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.settings.connection?.back(this);
    this.abortStart?.(new Error('subscription closed while starting'));
    this.startCommitted?.();
    this.setPaused(true);
    const { sessionTimeoutMs, topic, groupId, logger } = this.settings;
    const left = await settleWithin(this.commitAndLeave(), sessionTimeoutMs);
    if (!left) logger.warn({ topic, groupId, waitedMs: sessionTimeoutMs }, 'kafka consumer could not commit and leave its group; closing without');
  }

  private async commitAndLeave(): Promise<void> {
    try {
      await this.committer.flush();
    } finally {
      this.committer.close();
    }
    await this.consumer.disconnect();
  }
}
