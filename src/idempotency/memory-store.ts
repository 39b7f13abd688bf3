import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { claimDecision, type ClaimOwner, type ClaimResult, type IdempotencyStore, type StoredReply } from './store.js';
import { positiveInteger } from '../check-integer.js';

interface Entry {
  done: boolean;
  reply: StoredReply | undefined;
  expiresAt: number;
  owner: ClaimOwner | undefined;
}

export interface MemoryIdempotencyStoreOptions {
  /** Upper bound on remembered ids; the oldest are forgotten first. Default 100,000. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/**
 * Process-local dedupe with TTL. Expiry is swept lazily from a FIFO of (key, expiry)
 * written on every claim and completion: O(1) amortized, no timer. A FIFO item whose key
 * was written again later is stale and skipped (its expiry no longer matches the entry).
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private fifoKeys: string[] = [];
  private fifoExpiry: number[] = [];
  private head = 0;
  private readonly maxEntries: number;
  private readonly clock: Clock;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.maxEntries = positiveInteger(options.maxEntries ?? 100_000, 'MemoryIdempotencyStore: maxEntries');
    this.clock = options.clock ?? systemClock;
  }

  claim(key: string, leaseMs: number, owner: ClaimOwner): ClaimResult {
    const now = this.clock.now();
    this.sweep(now);
    const existing = this.entries.get(key);
    const decision = claimDecision(existing, owner, now);
    if (decision === 'done') return { state: 'done', reply: existing?.reply };
    if (decision === 'in-progress') {
      return { state: 'in-progress', ...(existing?.owner ? { owner: existing.owner } : {}), leaseLeftMs: (existing?.expiresAt ?? now) - now };
    }
    this.write(key, { done: false, reply: undefined, expiresAt: now + leaseMs, owner });
    return decision === 'take-over' && existing?.owner ? { state: 'claimed', takenOverFrom: existing.owner } : { state: 'claimed' };
  }

  complete(key: string, reply: StoredReply | undefined, ttlMs: number): void {
    this.write(key, { done: true, reply, expiresAt: this.clock.now() + ttlMs, owner: undefined });
  }

  release(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private write(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.fifoKeys.push(key);
    this.fifoExpiry.push(entry.expiresAt);
  }

  /** Drops expired entries and, past maxEntries, the oldest ones. */
  private sweep(now: number): void {
    while (this.head < this.fifoKeys.length) {
      const key = this.fifoKeys[this.head] as string;
      const expiry = this.fifoExpiry[this.head] as number;
      const entry = this.entries.get(key);
      const stale = entry === undefined || entry.expiresAt !== expiry;
      if (!stale && expiry > now && this.entries.size < this.maxEntries) break;
      if (!stale) this.entries.delete(key);
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.fifoKeys.length) {
      this.fifoKeys = this.fifoKeys.slice(this.head);
      this.fifoExpiry = this.fifoExpiry.slice(this.head);
      this.head = 0;
    }
  }
}
