import type { MaybePromise } from '../maybe-promise.js';
import type { Delivery, TransportKind } from '../transport.js';
import type { ClaimResult, IdempotencyStore, StoredReply } from './store.js';
import { positiveInteger } from '../check-integer.js';

/**
 * `message-id`: a message is the same message when its envelope messageId is the same —
 * this also catches a publisher retrying with the same id. `transport-natural`: when the
 * transport's own delivery identity is the same (Kafka topic:partition:offset, JetStream
 * stream sequence) — only broker redeliveries are caught.
 */
export const DEDUPE_STRATEGIES = ['message-id', 'transport-natural'] as const;
export type DedupeStrategy = (typeof DEDUPE_STRATEGIES)[number];

export interface DedupeOptions {
  readonly store: IdempotencyStore;
  readonly strategy?: DedupeStrategy;
  /** How long a processed message is remembered. Default 1 hour. */
  readonly ttlMs?: number;
  /**
   * How long a claim by a running handler blocks redeliveries. After it, a redelivery runs
   * the handler again (the first process is presumed dead). Default 5 minutes.
   */
  readonly leaseMs?: number;
}

/** The inbox's view of the idempotency store: keys derived once, TTLs applied. */
export class Dedupe {
  readonly strategy: DedupeStrategy;
  private readonly ttlMs: number;
  private readonly leaseMs: number;

  constructor(private readonly options: DedupeOptions) {
    this.strategy = options.strategy ?? 'message-id';
    if (!DEDUPE_STRATEGIES.includes(this.strategy)) throw new TypeError(`idempotency.strategy must be one of ${DEDUPE_STRATEGIES.join(', ')}`);
    this.ttlMs = positiveInteger(options.ttlMs ?? 60 * 60 * 1000, 'idempotency.ttlMs');
    this.leaseMs = positiveInteger(options.leaseMs ?? 5 * 60 * 1000, 'idempotency.leaseMs');
  }

  get store(): IdempotencyStore {
    return this.options.store;
  }

  keyOf(messageId: string, delivery: Delivery, transport: TransportKind): string {
    return this.strategy === 'message-id' ? messageId : `${transport}:${delivery.coordinates.deliveryId}`;
  }

  claim(key: string): MaybePromise<ClaimResult> {
    return this.options.store.claim(key, this.leaseMs);
  }

  complete(key: string, reply: StoredReply | undefined): MaybePromise<void> {
    return this.options.store.complete(key, reply, this.ttlMs);
  }

  release(key: string): MaybePromise<void> {
    return this.options.store.release(key);
  }
}
