import type { Delivery, DeliveryCoordinates, DeliveryHandler } from '../../src/transport.js';
import { handOver } from '../../src/delivery.js';

/** A message as a subscription holds it until its handler settles it. */
export interface QueuedMessage {
  readonly topic: string;
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly deliveryId: string;
  readonly offset?: string;
  attempt: number;
  /** The broker will not deliver it again (see Delivery.exhausted). */
  readonly exhausted?: boolean;
  /**
   * Settlement the broker does itself (JetStream ack/nak); without it nacks redeliver locally.
   * `working`: tells the broker the message is still being handled (JetStream in-progress
   * ack), so it neither redelivers it nor counts a delivery while a deferred message waits here.
   */
  readonly settleRemote?: { ack(): void; nak(delayMs: number): void; working?(): void };
}

export interface DeliveryQueueOptions {
  readonly handler: DeliveryHandler;
  /** Deliveries handed out and not yet settled. */
  readonly maxInflight: number;
  /** Runs the drain later, never inside the caller (setImmediate, queueMicrotask). */
  readonly schedule: (drain: () => void) => void;
  /** Messages held beyond maxInflight; past it `onOverflow` gets them. Default: unbounded. */
  readonly maxPending?: number;
  readonly onOverflow?: (message: QueuedMessage) => void;
  /** Where a nacked message goes back to. Default: this queue. */
  readonly redeliver?: (message: QueuedMessage) => void;
  /** How often a deferred message with `settleRemote.working` tells the broker it is still held. */
  readonly workingEveryMs?: number;
}

/**
 * The delivery loop shared by the in-process and NATS transports: messages are handed to
 * the handler in arrival order, at most `maxInflight` unsettled at once, each through a
 * Delivery whose ack/nack settle it exactly once. A nack without broker-side settlement
 * is redelivered from here after its delay, with the attempt counted.
 */
export class DeliveryQueue {
  private queue: QueuedMessage[] = [];
  private head = 0;
  private inflight = 0;
  private scheduled = false;
  private closed = false;

  constructor(private readonly options: DeliveryQueueOptions) {}

  get waiting(): number {
    return this.queue.length - this.head;
  }

  push(message: QueuedMessage): void {
    if (this.closed) return;
    if (this.options.maxPending !== undefined && this.waiting >= this.options.maxPending) return this.options.onOverflow?.(message);
    this.queue.push(message);
    this.scheduleDrain();
  }

  /** Stops delivering; returns what was still waiting (a group hands it to other members). */
  close(): QueuedMessage[] {
    this.closed = true;
    const left = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    return left;
  }

  private scheduleDrain(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    this.options.schedule(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    while (!this.closed && this.inflight < this.options.maxInflight && this.head < this.queue.length) {
      const message = this.queue[this.head++] as QueuedMessage;
      this.inflight++;
      this.deliver(message);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private deliver(message: QueuedMessage): void {
    handOver(this.options.handler, new QueueDelivery(this, message));
  }

  /** A delivery of this queue was settled (see QueueDelivery): its in-flight slot is free. */
  settled(): void {
    this.inflight--;
    if (this.head < this.queue.length) this.scheduleDrain();
  }

  /** A delivery of this queue failed: the broker redelivers it, or this queue does after the delay, the attempt counted. */
  nacked(message: QueuedMessage, delayMs: number): void {
    if (message.settleRemote) return message.settleRemote.nak(delayMs);
    message.attempt++;
    const again = (): void => (this.options.redeliver ?? ((m: QueuedMessage) => this.push(m)))(message);
    if (delayMs > 0) setTimeout(again, delayMs).unref();
    else again();
  }

  /**
   * Holds a message another run is handling and hands it over again after `delayMs`, with
   * the same attempt. Its in-flight slot is freed meanwhile; a broker-settled message stays
   * unacked at the broker, kept from redelivery by in-progress acks, so the broker counts
   * no delivery for the wait. Once the queue is closed a held message goes where a nacked
   * one goes (the memory bus: the group); a broker's own redelivers after its ack wait.
   */
  defer(message: QueuedMessage, delayMs: number): void {
    const working = message.settleRemote?.working;
    const every = this.options.workingEveryMs;
    const beat = working && every !== undefined ? setInterval(() => (this.closed ? clearInterval(beat) : working()), every) : undefined;
    beat?.unref();
    const again = (): void => {
      clearInterval(beat);
      if (message.settleRemote) this.push(message);
      else (this.options.redeliver ?? ((m: QueuedMessage) => this.push(m)))(message);
    };
    setTimeout(again, Math.max(0, delayMs)).unref();
  }
}

/**
 * The Delivery a DeliveryQueue hands out: the first ack, nack or defer settles it (freeing
 * its in-flight slot first), later calls do nothing. A class rather than createDelivery's
 * closures: two objects per message instead of about ten, on every transport that uses the queue.
 */
class QueueDelivery implements Delivery {
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly coordinates: DeliveryCoordinates;
  readonly attempt: number;
  readonly exhausted: boolean | undefined;
  private isSettled = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly message: QueuedMessage,
  ) {
    this.body = message.body;
    this.key = message.key;
    this.coordinates = message.offset === undefined ? { topic: message.topic, deliveryId: message.deliveryId } : { topic: message.topic, deliveryId: message.deliveryId, offset: message.offset };
    this.attempt = message.attempt;
    this.exhausted = message.exhausted;
  }

  private settle(): boolean {
    if (this.isSettled) return false;
    this.isSettled = true;
    this.queue.settled();
    return true;
  }

  ack(): void {
    if (this.settle()) this.message.settleRemote?.ack();
  }

  nack(options?: { delayMs?: number }): void {
    if (this.settle()) this.queue.nacked(this.message, options?.delayMs ?? 0);
  }

  defer(delayMs: number): void {
    if (this.settle()) this.queue.defer(this.message, delayMs);
  }
}
