/** Dedupe of redelivered requests and its stores, for the inbox and the runtime. */
export { Dedupe, DEDUPE_STRATEGIES, type DedupeOptions } from './dedupe.js';
export { MemoryIdempotencyStore } from './memory-store.js';
export type { IdempotencyStore, StoredReply } from './store.js';
