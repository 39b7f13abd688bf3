import { describe, expect, it } from 'vitest';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-store.js';

describe('idempotency - memory store', () => {
  const reply = { replyTo: 'memory://r', body: new Uint8Array([1, 2, 3]) };

  it('idempotency - claim, in-progress, done with the stored reply', async () => {
    const store = new MemoryIdempotencyStore();
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'claimed' });
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'in-progress' });
    await store.complete('m1', reply, 1_000);
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'done', reply });
  });

  it('idempotency - release lets the next delivery claim again', async () => {
    const store = new MemoryIdempotencyStore();
    await store.claim('m1', 1_000);
    await store.release('m1');
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'claimed' });
  });

  it('idempotency - entries expire after their TTL', async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ clock: { now: () => now } });
    await store.claim('m1', 100);
    await store.complete('m1', reply, 100);
    now = 99;
    expect((await store.claim('m1', 100)).state).toBe('done');
    now = 100;
    expect((await store.claim('m1', 100)).state).toBe('claimed');
  });

  it('idempotency - the oldest ids are forgotten beyond maxEntries', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) await store.claim(id, 60_000);
    expect(store.size).toBe(2);
    expect((await store.claim('c', 60_000)).state).toBe('in-progress');
  });
});
