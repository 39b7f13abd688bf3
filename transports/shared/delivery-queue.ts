import type { DeliveryHandler } from '../../src/transport.js';
import { handOver } from '../../src/delivery.js';
import type { Delivery } from '../../src/transport.js';

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
    handOver(this.options.handler, queueDelivery(this, message));
  }

  /** A delivery of the queue settled (ack, nack or defer): its in-flight slot is free. */
  settled(): void {
    this.inflight--;
    if (this.head < this.queue.length) this.scheduleDrain();
  }

  /** A nack: the broker's own settlement where it has one, else the message comes again from here after its delay, counted. */
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
  deferred(message: QueuedMessage, delayMs: number): void {
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
 * The Delivery of a queued message: settles once (the first ack, nack or defer wins). Made
 * twice per call on the memory and NATS paths, so it holds no closures: its methods are
 * shared functions on own properties, which keeps it a plain object to whoever copies it
 * with a change (`{...delivery, ack}`), as wrappers of a transport do.
 */
interface QueueDelivery extends Delivery {
  readonly queue: DeliveryQueue;
  readonly message: QueuedMessage;
  settled: boolean;
}

function queueDelivery(queue: DeliveryQueue, message: QueuedMessage): QueueDelivery {
  const { topic, deliveryId, offset } = message;
  return {
    body: message.body,
    key: message.key,
    coordinates: offset === undefined ? { topic, deliveryId } : { topic, deliveryId, offset },
    attempt: message.attempt,
    exhausted: message.exhausted,
    queue,
    message,
    settled: false,
    ack: ackQueued,
    nack: nackQueued,
    defer: deferQueued,
  };
}

function settleOnce(delivery: QueueDelivery): boolean {
  if (delivery.settled) return false;
  delivery.settled = true;
  delivery.queue.settled();
  return true;
}

function ackQueued(this: QueueDelivery): void {
  if (settleOnce(this)) this.message.settleRemote?.ack();
}

function nackQueued(this: QueueDelivery, options?: { delayMs?: number }): void {
  if (settleOnce(this)) this.queue.nacked(this.message, options?.delayMs ?? 0);
}

function deferQueued(this: QueueDelivery, delayMs: number): void {
  if (settleOnce(this)) this.queue.deferred(this.message, delayMs);
}
