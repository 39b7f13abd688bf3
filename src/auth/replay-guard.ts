import { ExpiringMap } from '../expiring-map.js';

/**
 * Remembers accepted signed envelopes until their signing time leaves the acceptance
 * window, so the same bytes published again are recognised as a replay.
 *
 * Entries arrive in roughly signing-time order, so they expire from the oldest write on, in
 * O(1) amortized per entry, lazily on each check (an ExpiringMap: at 1,500 envelopes/s the
 * 5-minute window holds 450,000 entries, which in one Map cost a walk over every
 * tombstone on each expiry and a 200 ms table rebuild every few minutes). Memory is rate ×
 * window (about 150 bytes an entry); `maxEntries` bounds it, evicting the oldest first,
 * which shortens the effective replay memory only when traffic exceeds maxEntries per window.
 */
export type ReplayCheck = 'fresh' | 'redelivery' | 'replayed';

/**
 * Replay memory shared by the replicas of an agent (e.g. RedisReplayStore): the same check
 * as ReplayGuard's, answered for every process at once. A failing store is bypassed (the
 * provider falls back to its own process's memory), so `check` may reject.
 */
export interface SharedReplayStore {
  check(key: string, deliveryId: string, expiresAt: number, now: number): Promise<ReplayCheck>;
  close(): Promise<void>;
}

interface Seen {
  readonly deliveryId: string;
  readonly expiresAt: number;
}

export class ReplayGuard {
  private readonly seen: ExpiringMap<Seen>;

  constructor(maxEntries: number) {
    this.seen = new ExpiringMap<Seen>((entry) => entry.expiresAt, maxEntries, 'hmacAuth: maxReplayEntries');
  }

  get size(): number {
    return this.seen.size;
  }

  /**
   * Records `key` (accepted until `expiresAt`) for this broker message. The same key from
   * the same broker message is a redelivery (at-least-once), from another one a replay.
   */
  check(key: string, deliveryId: string, expiresAt: number, now: number): ReplayCheck {
    this.seen.sweep(now);
    const previous = this.seen.get(key);
    if (previous !== undefined && previous.expiresAt > now) {
      return previous.deliveryId === deliveryId ? 'redelivery' : 'replayed';
    }
    this.seen.set(key, { deliveryId, expiresAt });
    return 'fresh';
  }
}
