import type { MaybePromise } from '../maybe-promise.js';

/**
 * Dedupe of redelivered messages. The inbox claims a message id before dispatch and
 * completes it with the final response it sent, so a redelivery of a finished request
 * gets that same response again instead of a second run of the handler.
 */

export interface StoredReply {
  /** Where the final response went (`replyTo` of the request). */
  readonly replyTo: string;
  /** The response envelope exactly as sent. */
  readonly body: Uint8Array;
}

/**
 * Who holds a claim. `instance` names a node across restarts (its `instanceId`, or a
 * stable default); `life` is random per process start. A claim of the same instance in
 * another life was left by a process that died: the new life takes it over at once.
 */
export interface ClaimOwner {
  readonly instance: string;
  readonly life: string;
}

export type ClaimResult =
  /** `takenOverFrom`: the claim belonged to this instance's previous life, which died running it. */
  | { readonly state: 'claimed'; readonly takenOverFrom?: ClaimOwner }
  /**
   * A live run holds it (another instance, or this very life). `owner` is absent for a
   * claim without one (written by an older version); `leaseLeftMs` is how long it holds.
   */
  | { readonly state: 'in-progress'; readonly owner?: ClaimOwner; readonly leaseLeftMs?: number }
  | { readonly state: 'done'; readonly reply: StoredReply | undefined };

/** Stores that can answer at once (memory, SQLite) return plain values; remote ones promises. */
export interface IdempotencyStore {
  /**
   * Atomically claims `key` for `owner` for `leaseMs` unless it is done or claimed by a
   * live run; see `claimDecision` for the rules every store applies.
   */
  claim(key: string, leaseMs: number, owner: ClaimOwner): MaybePromise<ClaimResult>;
  /** Marks `key` done; the reply (if any) is what a duplicate will be answered with. */
  complete(key: string, reply: StoredReply | undefined, ttlMs: number): MaybePromise<void>;
  /** Drops a claim so a redelivery runs the handler again (the attempt failed). */
  release(key: string): MaybePromise<void>;
  close?(): Promise<void>;
}

/** A record as a store keeps it, enough to decide a claim. */
export interface ClaimRecord {
  readonly done: boolean;
  readonly expiresAt: number;
  /** Absent for claims written before claims had owners. */
  readonly owner: ClaimOwner | undefined;
}

/**
 * The one claim rule, shared by the stores so they cannot drift apart:
 * - no record, or one past its lease / TTL → claim it;
 * - done → answer with the stored reply;
 * - claimed by the same instance in another life → that life died: take the claim over;
 * - claimed by another instance, by this very life, or by an unknown owner → in progress
 *   until the lease ends.
 */
export function claimDecision(record: ClaimRecord | undefined, owner: ClaimOwner, now: number): 'claim' | 'take-over' | 'in-progress' | 'done' {
  if (!record || record.expiresAt <= now) return 'claim';
  if (record.done) return 'done';
  const holder = record.owner;
  if (holder && holder.instance === owner.instance && holder.life !== owner.life) return 'take-over';
  return 'in-progress';
}
