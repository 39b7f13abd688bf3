import type { MaybePromise } from '../maybe-promise.js';
import type { Delivery, TransportKind } from '../transport.js';
import { randomBytes } from 'node:crypto';
import type { ClaimOwner, ClaimResult, IdempotencyStore, StoredReply } from './store.js';
import { positiveInteger } from '../check-integer.js';

/**
 * This process's life: random per start, shared by every node of the process, so nodes of
 * one process never take over each other's claims — only a later process can.
 */
const PROCESS_LIFE = randomBytes(8).toString('hex');

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
   * How long a claim by a running handler holds off redeliveries (they are deferred,
   * uncounted). After it, a redelivery runs the handler again (the first run is presumed
   * dead). A claim of this instance's previous life is taken over at once instead.
   * Default 5 minutes.
   */
  readonly leaseMs?: number;
  /**
   * Who owns this node's claims across restarts: a process that starts with the same
   * `instance` takes over the claims its dead predecessor left, at once, instead of
   * waiting out their lease. Two processes running at the same time must never share it.
   * Default: the node's `instanceId` when one is given, else `<agent id>@<hostname>`
   * (the daemon adds its data directory).
   */
  readonly instance?: string;
}

/** The inbox's view of the idempotency store: keys derived once, TTLs applied. */
export class Dedupe {
  readonly strategy: DedupeStrategy;
  private readonly ttlMs: number;
  /** How long this node's claims hold. */
  readonly leaseMs: number;
  /** This node's claims carry it. */
  readonly owner: ClaimOwner;

  /** `defaultInstance` applies when `options.instance` is not set. */
  constructor(
    private readonly options: DedupeOptions,
    defaultInstance: string,
  ) {
    this.strategy = options.strategy ?? 'message-id';
    if (!DEDUPE_STRATEGIES.includes(this.strategy)) throw new TypeError(`idempotency.strategy must be one of ${DEDUPE_STRATEGIES.join(', ')}`);
    this.ttlMs = positiveInteger(options.ttlMs ?? 60 * 60 * 1000, 'idempotency.ttlMs');
    this.leaseMs = positiveInteger(options.leaseMs ?? 5 * 60 * 1000, 'idempotency.leaseMs');
    const instance = options.instance ?? defaultInstance;
    if (typeof instance !== 'string' || instance.length === 0) throw new TypeError('idempotency.instance must be a non-empty string');
    this.owner = { instance, life: PROCESS_LIFE };
  }

  get store(): IdempotencyStore {
    return this.options.store;
  }

  keyOf(messageId: string, delivery: Delivery, transport: TransportKind): string {
    return this.strategy === 'message-id' ? messageId : `${transport}:${delivery.coordinates.deliveryId}`;
  }

  claim(key: string): MaybePromise<ClaimResult> {
    return this.options.store.claim(key, this.leaseMs, this.owner);
  }

  complete(key: string, reply: StoredReply | undefined): MaybePromise<void> {
    return this.options.store.complete(key, reply, this.ttlMs);
  }

  release(key: string): MaybePromise<void> {
    return this.options.store.release(key);
  }
}
