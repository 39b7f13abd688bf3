import { positiveInteger } from './check-integer.js';

/**
 * Entries per internal Map that the shard count aims at. V8 rebuilds a Map's whole table at
 * once — when it grows, and when deletions have filled it with tombstones — and that takes
 * about 0.3 µs per live entry on the event loop: 1.3 ms for 4,096 entries, but 20 ms for
 * 60,000 and 200 ms for 450,000 (the HMAC replay memory of 1,500 calls/s over its 5-minute
 * window). Many small Maps rebuild one small table at a time.
 */
const ENTRIES_PER_SHARD = 4096;
const MAX_SHARDS = 4096;
/** Items per block of the write queue: blocks leave whole, so the queue is never copied. */
const BLOCK = 4096;

/**
 * A string-keyed Map whose entries each expire, for stores that hold a great many of them
 * (dedupe records, replay memory) on the hot path, with no pause that grows with their
 * number:
 * - entries are spread over up to `maxEntries / 4096` Maps by a hash of the key's end, so a
 *   table rebuild copies a few thousand entries at most;
 * - expiry and eviction follow a queue of writes in blocks (`sweep`), never a walk of a Map
 *   from its start, which steps over every tombstone left since the last rebuild;
 * - the queue's items are a key and a number: no object per write.
 * A queue item whose key was written again later, or deleted, is stale and skipped.
 */
export class ExpiringMap<V> {
  private readonly shards: Array<Map<string, V>>;
  private readonly mask: number;
  private readonly maxEntries: number;
  private count = 0;
  private readonly keyBlocks: string[][] = [[]];
  private readonly expiryBlocks: number[][] = [[]];
  /** Position of the oldest item in the first block. */
  private head = 0;

  /** `expiresAt` reads an entry's expiry (epoch ms); `maxEntries` bounds the entries kept. */
  constructor(
    private readonly expiresAt: (value: V) => number,
    maxEntries: number,
    field = 'maxEntries',
  ) {
    this.maxEntries = positiveInteger(maxEntries, field);
    let shards = 1;
    while (shards * ENTRIES_PER_SHARD < this.maxEntries && shards < MAX_SHARDS) shards *= 2;
    this.shards = Array.from({ length: shards }, () => new Map<string, V>());
    this.mask = shards - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The entries of the largest internal Map: what one table rebuild copies at most. */
  get largestShardSize(): number {
    return Math.max(...this.shards.map((shard) => shard.size));
  }

  /** The entry as stored, expired or not (`sweep` removes the expired ones). */
  get(key: string): V | undefined {
    return this.shardOf(key).get(key);
  }

  /**
   * Stores `value`; it leaves when `sweep` finds it expired. A new key on a full map first
   * makes room: the oldest write leaves.
   */
  set(key: string, value: V): void {
    const shard = this.shardOf(key);
    if (this.count >= this.maxEntries && !shard.has(key)) this.advance(Number.NEGATIVE_INFINITY, true);
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    let keys = this.keyBlocks[this.keyBlocks.length - 1]!;
    let expiries = this.expiryBlocks[this.expiryBlocks.length - 1]!;
    if (keys.length === BLOCK) {
      this.keyBlocks.push((keys = []));
      this.expiryBlocks.push((expiries = []));
    }
    keys.push(key);
    expiries.push(this.expiresAt(value));
  }

  delete(key: string): void {
    if (this.shardOf(key).delete(key)) this.count--;
  }

  /**
   * Drops the entries expired at `now`, from the oldest write on. Stops at the first live
   * one: writes come in roughly expiry order, so this is O(1) amortized per write.
   */
  sweep(now: number): void {
    this.advance(now, false);
  }

  /** Walks the queue from its oldest item, dropping expired entries, and while `makeRoom` and full, live ones. */
  private advance(now: number, makeRoom: boolean): void {
    for (;;) {
      const keys = this.keyBlocks[0]!;
      if (this.head === keys.length) {
        if (this.keyBlocks.length === 1) {
          // Empty: fill the one block again from its start.
          keys.length = 0;
          this.expiryBlocks[0]!.length = 0;
          this.head = 0;
          return;
        }
        this.keyBlocks.shift();
        this.expiryBlocks.shift();
        this.head = 0;
        continue;
      }
      const key = keys[this.head]!;
      const expiry = this.expiryBlocks[0]![this.head]!;
      const shard = this.shardOf(key);
      const entry = shard.get(key);
      const stale = entry === undefined || this.expiresAt(entry) !== expiry;
      if (!stale && expiry > now && !(makeRoom && this.count >= this.maxEntries)) return;
      if (!stale) {
        shard.delete(key);
        this.count--;
      }
      // The queue lets go of the key as it passes it.
      (keys as Array<string | undefined>)[this.head] = undefined;
      this.head++;
    }
  }

  /** FNV-1a over the key's last 8 characters, where ids and sequence numbers vary most. */
  private shardOf(key: string): Map<string, V> {
    if (this.mask === 0) return this.shards[0]!;
    let hash = 0x811c9dc5;
    for (let i = Math.max(0, key.length - 8); i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return this.shards[(hash ^ (hash >>> 15)) & this.mask]!;
  }
}
