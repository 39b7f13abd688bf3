import type { Delivery, DeliveryHandler } from '../../src/transport.js';

/** A message as held by a subscription until its handler settles it. */
export interface QueuedMessage {
  readonly topic: string;
  readonly body: Uint8Array;
  readonly deliveryId: string;
  attempt: number;
  /** Transport-level settlement (JetStream ack/nak); core NATS has none. */
  readonly settleRemote?: { ack(): void; nak(delayMs: number): void };
}

/**
 * Hands messages to the handler with at most `maxInflight` unsettled at once and never
 * inside the client's callback (delivery runs in a microtask after it). A nack on a
 * message without remote settlement is redelivered from here, after its delay, with the
 * attempt counted.
 */
export class LocalQueue {
  private readonly queue: QueuedMessage[] = [];
  private head = 0;
  private inflight = 0;
  private scheduled = false;
  closed = false;

  constructor(
    private readonly handler: DeliveryHandler,
    private readonly maxInflight: number,
    private readonly maxPending: number,
    private readonly onOverflow: (message: QueuedMessage) => void,
  ) {}

  push(message: QueuedMessage): void {
    if (this.closed) return;
    if (this.queue.length - this.head >= this.maxPending) return this.onOverflow(message);
    this.queue.push(message);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    while (!this.closed && this.inflight < this.maxInflight && this.head < this.queue.length) {
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
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      this.inflight--;
      if (this.head < this.queue.length) this.schedule();
      return true;
    };
    const delivery: Delivery = {
      body: message.body,
      key: undefined,
      coordinates: { topic: message.topic, deliveryId: message.deliveryId },
      attempt: message.attempt,
      ack: () => {
        if (settle()) message.settleRemote?.ack();
      },
      nack: (options) => {
        if (!settle()) return;
        const delayMs = options?.delayMs ?? 0;
        if (message.settleRemote) return message.settleRemote.nak(delayMs);
        message.attempt++;
        if (delayMs > 0) setTimeout(() => this.push(message), delayMs).unref();
        else this.push(message);
      },
    };
    try {
      this.handler(delivery);
    } catch {
      delivery.nack();
    }
  }
}
