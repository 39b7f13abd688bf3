import type { Delivery, DeliveryHandler, SubscribeOptions, Subscription } from '../../src/transport.js';

/** Receives the responses to one request handed in through the ingress (progress and final). */
export type ReplyListener = (body: Uint8Array) => void;

/**
 * The server half of the HTTP transport, one per process: the session API hands request
 * envelopes to the agent subscribed on the envelope's request topic, and the agent's
 * responses come back here (the agent publishes them on its `http` transport) and go to
 * the session waiting for them, matched by `causedBy`. Shared subscriptions (a group)
 * take turns; deliveries nacked by the inbox are handed over again after the delay.
 */
export class HttpIngress {
  private readonly subscribers = new Map<string, DeliveryHandler[]>();
  private readonly turn = new Map<string, number>();
  private readonly waiting = new Map<string, Set<ReplyListener>>();

  subscribe(topic: string, handler: DeliveryHandler, _options?: SubscribeOptions): Subscription {
    const list = this.subscribers.get(topic) ?? [];
    list.push(handler);
    this.subscribers.set(topic, list);
    return {
      topic,
      close: async () => {
        const remaining = (this.subscribers.get(topic) ?? []).filter((h) => h !== handler);
        if (remaining.length === 0) this.subscribers.delete(topic);
        else this.subscribers.set(topic, remaining);
      },
    };
  }

  hasSubscriber(topic: string): boolean {
    return (this.subscribers.get(topic)?.length ?? 0) > 0;
  }

  /**
   * Hands an envelope to the agent of this process that consumes `topic`. Resolves when
   * its inbox has settled the delivery (answered, refused or dead-lettered); rejects when
   * no agent here consumes `topic`.
   */
  deliver(topic: string, body: Uint8Array, deliveryId: string): Promise<void> {
    if (!this.hasSubscriber(topic)) return Promise.reject(new Error(`no agent of this node consumes ${topic}`));
    return new Promise((resolve) => this.handOver(topic, { body, deliveryId }, 1, resolve));
  }

  /** Routes the responses to `requestMessageId` (progress and final) to `listener` until `release`. */
  awaitReplies(requestMessageId: string, listener: ReplyListener): void {
    const listeners = this.waiting.get(requestMessageId) ?? new Set<ReplyListener>();
    listeners.add(listener);
    this.waiting.set(requestMessageId, listeners);
  }

  release(requestMessageId: string, listener: ReplyListener): void {
    const listeners = this.waiting.get(requestMessageId);
    listeners?.delete(listener);
    if (listeners?.size === 0) this.waiting.delete(requestMessageId);
  }

  /** Routes a response envelope to the sessions waiting for it. False when none waits. */
  routeReply(body: Uint8Array): boolean {
    const causedBy = causedByOf(body);
    const listeners = causedBy === undefined ? undefined : this.waiting.get(causedBy);
    if (!listeners || listeners.size === 0) return false;
    for (const listener of listeners) listener(body);
    return true;
  }

  private handOver(topic: string, request: { body: Uint8Array; deliveryId: string }, attempt: number, done: () => void): void {
    const handlers = this.subscribers.get(topic);
    if (!handlers || handlers.length === 0) return done();
    const index = (this.turn.get(topic) ?? 0) % handlers.length;
    this.turn.set(topic, index + 1);
    let settled = false;
    const delivery: Delivery = {
      body: request.body,
      key: undefined,
      coordinates: { topic, deliveryId: request.deliveryId },
      attempt,
      ack: () => {
        if (settled) return;
        settled = true;
        done();
      },
      nack: (options) => {
        if (settled) return;
        settled = true;
        setTimeout(() => this.handOver(topic, request, attempt + 1, done), options?.delayMs ?? 0).unref();
      },
    };
    handlers[index]!(delivery);
  }
}

function causedByOf(body: Uint8Array): string | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { causedBy?: unknown };
    return typeof parsed.causedBy === 'string' ? parsed.causedBy : undefined;
  } catch {
    return undefined;
  }
}
