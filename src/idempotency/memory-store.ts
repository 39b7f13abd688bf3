import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { claimDecision, type ClaimOwner, type ClaimResult, type IdempotencyStore, type StoredReply } from './store.js';
import { ExpiringMap } from '../expiring-map.js';

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
 * Process-local dedupe with TTL. The records live in an ExpiringMap: expiry and, past
 * maxEntries, the oldest writes are swept from its queue of writes on every claim — O(1)
 * amortized, no timer — and no table it keeps is large enough to pause the event loop
 * when V8 rebuilds it.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries: ExpiringMap<Entry>;
  private readonly clock: Clock;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.entries = new ExpiringMap<Entry>((entry) => entry.expiresAt, options.maxEntries ?? 100_000, 'MemoryIdempotencyStore: maxEntries');
    this.clock = options.clock ?? systemClock;
  }

  claim(key: string, leaseMs: number, owner: ClaimOwner): ClaimResult {
    const now = this.clock.now();
    this.entries.sweep(now);
    const existing = this.entries.get(key);
    const decision = claimDecision(existing, owner, now);
    if (decision === 'done') return { state: 'done', reply: existing?.reply };
    if (decision === 'in-progress') {
      return { state: 'in-progress', ...(existing?.owner ? { owner: existing.owner } : {}), leaseLeftMs: (existing?.expiresAt ?? now) - now };
    }
    this.entries.set(key, { done: false, reply: undefined, expiresAt: now + leaseMs, owner });
    return decision === 'take-over' && existing?.owner ? { state: 'claimed', takenOverFrom: existing.owner } : { state: 'claimed' };
  }

  complete(key: string, reply: StoredReply | undefined, ttlMs: number): void {
    this.entries.set(key, { done: true, reply, expiresAt: this.clock.now() + ttlMs, owner: undefined });
  }

  release(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
