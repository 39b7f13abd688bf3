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

export type ClaimResult =
  | { readonly state: 'claimed' }
  | { readonly state: 'in-progress' }
  | { readonly state: 'done'; readonly reply: StoredReply | undefined };

/** Stores that can answer at once (memory, SQLite) return plain values; remote ones promises. */
export interface IdempotencyStore {
  /** Atomically claims `key` for `leaseMs` unless it is already claimed or done. */
  claim(key: string, leaseMs: number): MaybePromise<ClaimResult>;
  /** Marks `key` done; the reply (if any) is what a duplicate will be answered with. */
  complete(key: string, reply: StoredReply | undefined, ttlMs: number): MaybePromise<void>;
  /** Drops a claim so a redelivery runs the handler again (the attempt failed). */
  release(key: string): MaybePromise<void>;
  close?(): Promise<void>;
}
