import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { ClaimResult, IdempotencyStore, StoredReply } from './store.js';

interface Entry {
  done: boolean;
  reply: StoredReply | undefined;
  expiresAt: number;
}

export interface MemoryIdempotencyStoreOptions {
  /** Upper bound on remembered ids; the oldest are forgotten first. Default 100,000. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/**
 * Process-local dedupe with TTL. Expired entries are swept lazily from the oldest end
 * (insertion order), so the cost stays O(1) amortized per claim and no timer runs.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly clock: Clock;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) {
      throw new RangeError('MemoryIdempotencyStore: maxEntries must be a positive integer');
    }
    this.clock = options.clock ?? systemClock;
  }

  claim(key: string, ttlMs: number): ClaimResult {
    const now = this.clock.now();
    this.sweep(now);
    const existing = this.entries.get(key);
    if (existing && existing.expiresAt > now) {
      return existing.done ? { state: 'done', reply: existing.reply } : { state: 'in-progress' };
    }
    if (existing) this.entries.delete(key);
    this.entries.set(key, { done: false, reply: undefined, expiresAt: now + ttlMs });
    return { state: 'claimed' };
  }

  complete(key: string, reply: StoredReply | undefined, ttlMs: number): void {
    // Re-inserted so insertion order keeps following expiry order for the sweep.
    this.entries.delete(key);
    this.entries.set(key, { done: true, reply, expiresAt: this.clock.now() + ttlMs });
  }

  release(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
