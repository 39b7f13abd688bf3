import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-store.js';
import { SqliteIdempotencyStore } from '../../src/idempotency/sqlite-store.js';
import type { IdempotencyStore } from '../../src/idempotency/store.js';
import { isRpcErrorWithCode } from '../support/assertions.js';

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'dedupe-')), 'dedupe.db');

const stores: Array<[string, (clock?: Clock) => Promise<IdempotencyStore>]> = [
  ['memory', async (clock) => new MemoryIdempotencyStore({ clock })],
  ['sqlite', (clock) => SqliteIdempotencyStore.open({ path: dbPath(), clock })],
];

describe.each(stores)('idempotency - %s store', (_name, open) => {
  const reply = { replyTo: 'memory://r', body: new Uint8Array([1, 2, 3]) };

  it('idempotency - claim, in-progress, done with the stored reply', async () => {
    const store = await open();
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'claimed' });
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'in-progress' });
    await store.complete('m1', reply, 1_000);
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'done', reply });
    await store.complete('m2', undefined, 1_000);
    expect(await store.claim('m2', 1_000)).toEqual({ state: 'done', reply: undefined });
    await store.close?.();
  });

  it('idempotency - release lets the next delivery claim again', async () => {
    const store = await open();
    await store.claim('m1', 1_000);
    await store.release('m1');
    expect(await store.claim('m1', 1_000)).toEqual({ state: 'claimed' });
    await store.close?.();
  });

  it('idempotency - a claim lapses after its lease, a record after its TTL', async () => {
    let now = 1_000;
    const store = await open({ now: () => now });
    await store.claim('leased', 100);
    now += 99;
    expect((await store.claim('leased', 100)).state).toBe('in-progress');
    now += 1;
    expect((await store.claim('leased', 100)).state).toBe('claimed');
    await store.complete('kept', reply, 500);
    now += 499;
    expect((await store.claim('kept', 100)).state).toBe('done');
    now += 1;
    expect((await store.claim('kept', 100)).state).toBe('claimed');
    await store.close?.();
  });
});

describe('idempotency - sqlite store persistence', () => {
  it('idempotency - completed records and their replies survive reopening the file', async () => {
    const path = dbPath();
    const first = await SqliteIdempotencyStore.open({ path });
    await first.claim('m1', 60_000);
    await first.complete('m1', { replyTo: 'kafka://agents.a.responses.i1', body: Buffer.from('{"reply":1}') }, 60_000);
    await first.claim('m2', 60_000);
    await first.close();
    const second = await SqliteIdempotencyStore.open({ path, durability: 'power-loss' });
    const done = await second.claim('m1', 60_000);
    expect(done.state).toBe('done');
    expect(done.state === 'done' && Buffer.from(done.reply!.body).toString()).toBe('{"reply":1}');
    expect((await second.claim('m2', 60_000)).state).toBe('in-progress');
    await second.close();
  });

  it('idempotency - a missing better-sqlite3 is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const error = await SqliteIdempotencyStore.open({ path: dbPath(), loadModule: () => Promise.reject(new Error('Cannot find package')) }).catch((e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('idempotency - bad options throw TypeError naming the field', async () => {
    await expect(SqliteIdempotencyStore.open({ path: '' })).rejects.toThrow(/path/);
    await expect(SqliteIdempotencyStore.open({ path: dbPath(), durability: 'never' as never })).rejects.toThrow(/durability/);
  });
});

describe('idempotency - memory store bounds', () => {
  it('idempotency - the oldest ids are forgotten beyond maxEntries', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) await store.claim(id, 60_000);
    expect(store.size).toBe(2);
    expect((await store.claim('c', 60_000)).state).toBe('in-progress');
  });
});
