import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../src/observability/logger.js';
import type { Delivery, DeliveryHandler } from '../../src/transport.js';
import { CommitWatermark } from './commit-watermark.js';
import { DeliveryAttempts } from './delivery-attempts.js';
import type { KafkaConsumerSettings } from './kafka-options.js';
import { OffsetCommitter } from './offset-committer.js';

export interface KafkaSubscriptionSettings {
  readonly topic: string;
  readonly groupId: string;
  /**
   * Shared by a group: a new group starts at the earliest offset (a durable inbox keeps
   * what came before it). Otherwise fan-out: the group is this subscription's alone and
   * starts where the topic ends when it subscribes.
   */
  readonly shared: boolean;
  readonly maxInflight: number;
  readonly maxWaitTimeInMs: number;
  /** How long `close` waits for handed-out deliveries to settle, so their acks are committed. */
  readonly drainTimeoutMs: number;
  readonly consumer: Required<KafkaConsumerSettings>;
  readonly logger: Logger;
}

/** What a subscription needs from topic administration. */
export interface SubscriptionAdmin {
  endOffsets(topic: string): Promise<Array<{ partition: number; offset: string }>>;
  deleteGroup(groupId: string): Promise<void>;
}

const EMPTY = new Uint8Array(0);

/**
 * One consumer for one topic. Messages are handed to the handler in offset order without
 * waiting for each other (up to `maxInflight` unsettled; then the topic is paused and
 * resumed when one settles). Offsets are committed only up to the contiguous settled
 * prefix of each partition (CommitWatermark), so nothing is committed before its delivery
 * was settled. A nack delivers the same message again from here after its delay while
 * later messages keep flowing; the commit waits behind it.
 */
export class KafkaSubscription {
  private readonly consumer: Consumer;
  private readonly committer: OffsetCommitter;
  /** Per partition, for the current group generation; replaced when the group rebalances. */
  private marks = new Map<number, CommitWatermark>();
  private readonly attempts = new DeliveryAttempts();
  /** Nacked messages whose delay is over, waiting for an in-flight slot. */
  private readonly redeliveries: Array<() => void> = [];
  private inflight = 0;
  private paused = false;
  private redeliveryScheduled = false;
  private closed = false;
  private disconnecting = false;
  private abortStart: ((error: unknown) => void) | undefined;
  /** Set while `close` waits for handed-out deliveries. */
  private onSettled: (() => void) | undefined;

  constructor(
    kafka: Kafka,
    private readonly admin: SubscriptionAdmin,
    private readonly settings: KafkaSubscriptionSettings,
    private readonly handler: DeliveryHandler,
  ) {
    this.consumer = kafka.consumer({
      ...settings.consumer,
      groupId: settings.groupId,
      maxWaitTimeInMs: settings.maxWaitTimeInMs,
      minBytes: 1,
      allowAutoTopicCreation: false,
    });
    this.committer = new OffsetCommitter(settings.topic, (offsets) => this.consumer.commitOffsets(offsets), settings.logger);
  }

  /**
   * Resolves once the group is joined, partitions are assigned and the first fetch ran
   * (offsets are resolved): everything published afterwards reaches this subscription.
   */
  async start(): Promise<void> {
    const { topic, shared } = this.settings;
    const { events } = this.consumer;
    const positioned = new Promise<void>((resolve, reject) => {
      const stopWaiting = (): void => {
        removeFetch();
        removeCrash();
        this.abortStart = undefined;
      };
      const removeFetch = this.consumer.on(events.FETCH, () => (stopWaiting(), resolve()));
      const removeCrash = this.consumer.on(events.CRASH, (event) => (stopWaiting(), reject(event.payload.error)));
      this.abortStart = (error) => (stopWaiting(), reject(error));
    });
    positioned.catch(() => undefined);
    this.consumer.on(events.GROUP_JOIN, (event) => this.onGroupJoin(event.payload.memberAssignment[topic] ?? []));
    this.consumer.on(events.CRASH, (event) => this.onCrash(event.payload.error, event.payload.restart));
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [topic], fromBeginning: shared });
    // A fan-out group commits where the topic ends now, so a rejoin after a consumer
    // restart goes on from there instead of jumping to the then-latest offset.
    const start = shared ? undefined : await this.admin.endOffsets(topic);
    await this.consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: (payload) => this.onBatch(payload) });
    if (start) await this.consumer.commitOffsets(start.map((entry) => ({ topic, ...entry })));
    await positioned;
  }

  /**
   * Stops handing out messages, waits (up to `drainTimeoutMs`) for those handed out to
   * settle, commits what was acked, then leaves the group. Acks after that are not
   * committed: the next owner of the partition gets those messages again.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortStart?.(new Error('subscription closed while starting'));
    this.redeliveries.length = 0;
    this.setPaused(true);
    await this.settledOrTimeout();
    await this.committer.flush();
    this.disconnecting = true;
    await this.consumer.disconnect();
    // Fan-out groups are never joined again; without this their offsets stay for days.
    if (!this.settings.shared) await this.admin.deleteGroup(this.settings.groupId).catch(() => undefined);
  }

  private settledOrTimeout(): Promise<void> {
    if (this.inflight === 0 || this.settings.drainTimeoutMs === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.onSettled = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.settings.drainTimeoutMs);
      this.onSettled = () => this.inflight === 0 && done();
    });
  }

  private onGroupJoin(assigned: readonly number[]): void {
    // A new generation reads again from the committed offsets: deliveries of the old one
    // still settle, but neither commit nor redeliver locally (Kafka delivers them again).
    this.marks = new Map();
    this.committer.reset();
    this.attempts.retain(assigned);
    // A consumer restarted after a crash has forgotten that it was paused.
    if (this.paused) this.setPaused(true);
  }

  private onCrash(error: unknown, restart: boolean): void {
    const { logger, topic } = this.settings;
    if (restart) {
      if (logger.isLevelEnabled('warn')) logger.warn({ err: error, topic }, 'kafka consumer failed; restarting');
    } else if (!this.closed) {
      logger.error({ err: error, topic }, 'kafka consumer stopped after a non-retriable error');
    }
  }

  private async onBatch({ batch, resolveOffset, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const { partition } = batch;
    let mark = this.marks.get(partition);
    if (!mark) this.marks.set(partition, (mark = new CommitWatermark()));
    for (const message of batch.messages) {
      if (this.closed || !isRunning() || isStale()) return;
      // The rest of the batch is fetched again on resume, from the last resolved offset.
      if (this.inflight >= this.settings.maxInflight) return this.setPaused(true);
      // Moves the fetch position only; what is committed is decided by the watermark.
      resolveOffset(message.offset);
      mark.track(BigInt(message.offset));
      this.deliver(partition, mark, message, this.attempts.next(partition, message.offset));
    }
  }

  private deliver(partition: number, mark: CommitWatermark, message: KafkaMessage, attempt: number): void {
    this.inflight++;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      this.inflight--;
      if (this.closed) this.onSettled?.();
      else this.freeSlot();
      return true;
    };
    const { topic } = this.settings;
    const { offset } = message;
    const current = (): boolean => !this.closed && this.marks.get(partition) === mark;
    const delivery: Delivery = {
      body: message.value ?? EMPTY,
      key: message.key?.toString('utf8'),
      coordinates: { topic, partition, offset, deliveryId: `${topic}:${partition}:${offset}` },
      attempt,
      ack: () => {
        if (!settle()) return;
        this.attempts.forget(partition, offset);
        if (this.disconnecting || this.marks.get(partition) !== mark) return;
        const next = mark.settle(BigInt(offset));
        if (next !== undefined) this.committer.set(partition, next.toString());
      },
      nack: (options) => {
        if (!settle() || !current()) return;
        const again = (): void => {
          if (!current()) return;
          this.redeliveries.push(() => {
            if (current()) this.deliver(partition, mark, message, this.attempts.next(partition, offset));
          });
          this.scheduleRedeliveries();
        };
        const delayMs = options?.delayMs ?? 0;
        if (delayMs > 0) setTimeout(again, delayMs).unref();
        else again();
      },
    };
    try {
      this.handler(delivery);
    } catch {
      // A handler settles its deliveries itself; one that throws has failed this attempt.
      delivery.nack();
    }
  }

  /** A slot came free: waiting redeliveries take it first, otherwise fetching resumes. */
  private freeSlot(): void {
    if (this.closed) return;
    if (this.redeliveries.length > 0) this.scheduleRedeliveries();
    else if (this.paused && this.inflight < this.settings.maxInflight) this.setPaused(false);
  }

  /** Handed out on a later turn, never from inside another delivery's ack or nack. */
  private scheduleRedeliveries(): void {
    if (this.redeliveryScheduled) return;
    this.redeliveryScheduled = true;
    setImmediate(() => {
      this.redeliveryScheduled = false;
      while (!this.closed && this.inflight < this.settings.maxInflight && this.redeliveries.length > 0) (this.redeliveries.shift() as () => void)();
      if (this.redeliveries.length === 0) this.freeSlot();
    });
  }

  private setPaused(paused: boolean): void {
    this.paused = paused;
    if (this.disconnecting) return;
    const topics = [{ topic: this.settings.topic }];
    try {
      if (paused) this.consumer.pause(topics);
      else this.consumer.resume(topics);
    } catch {
      // No consumer group between a crash and its restart: onGroupJoin pauses it again.
    }
  }
}
