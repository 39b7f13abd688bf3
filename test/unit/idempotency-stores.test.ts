import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-store.js';
import { SqliteIdempotencyStore } from '../../src/idempotency/sqlite-store.js';
import type { IdempotencyStore } from '../../src/idempotency/store.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { until } from '../support/fleet.js';

const execFileAsync = promisify(execFile);
const OPEN_STORE_SCRIPT = fileURLToPath(new URL('../fixtures/processes/open-sqlite-store.ts', import.meta.url));

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'dedupe-')), 'dedupe.db');
const ME = { instance: 'worker-0', life: 'life-2' };

const stores: Array<[string, (clock?: Clock) => Promise<IdempotencyStore>]> = [
  ['memory', async (clock) => new MemoryIdempotencyStore({ clock })],
  ['sqlite', (clock) => SqliteIdempotencyStore.open({ path: dbPath(), clock })],
];

describe.each(stores)('idempotency - %s store', (_name, open) => {
  const reply = { replyTo: 'memory://r', body: new Uint8Array([1, 2, 3]) };

  it('idempotency - claim, in-progress, done with the stored reply', async () => {
    const store = await open();
    expect(await store.claim('m1', 1_000, ME)).toEqual({ state: 'claimed' });
    expect(await store.claim('m1', 1_000, ME)).toMatchObject({ state: 'in-progress', owner: ME });
    await store.complete('m1', reply, 1_000);
    expect(await store.claim('m1', 1_000, ME)).toEqual({ state: 'done', reply });
    await store.complete('m2', undefined, 1_000);
    expect(await store.claim('m2', 1_000, ME)).toEqual({ state: 'done', reply: undefined });
    await store.close?.();
  });

  it('idempotency - release lets the next delivery claim again', async () => {
    const store = await open();
    await store.claim('m1', 1_000, ME);
    await store.release('m1');
    expect(await store.claim('m1', 1_000, ME)).toEqual({ state: 'claimed' });
    await store.close?.();
  });

  it('idempotency - a claim lapses after its lease, a record after its TTL', async () => {
    let now = 1_000;
    const store = await open({ now: () => now });
    await store.claim('leased', 100, ME);
    now += 99;
    expect((await store.claim('leased', 100, ME)).state).toBe('in-progress');
    now += 1;
    expect((await store.claim('leased', 100, ME)).state).toBe('claimed');
    await store.complete('kept', reply, 500);
    now += 499;
    expect((await store.claim('kept', 100, ME)).state).toBe('done');
    now += 1;
    expect((await store.claim('kept', 100, ME)).state).toBe('claimed');
    await store.close?.();
  });
});

describe.each(stores)('idempotency - %s store claim owners', (_name, open) => {
  const previousLife = { instance: ME.instance, life: 'life-1' };
  const otherReplica = { instance: 'worker-1', life: 'life-9' };

  it('idempotency - a claim left by a previous life of the same instance is taken over at once', async () => {
    let now = 1_000;
    const store = await open({ now: () => now });
    await store.claim('m1', 60_000, previousLife);
    now += 1;
    expect(await store.claim('m1', 60_000, ME)).toEqual({ state: 'claimed', takenOverFrom: previousLife });
    // Taken over: it is this life's claim now, and the dead life cannot have it back.
    expect(await store.claim('m1', 60_000, ME)).toMatchObject({ state: 'in-progress', owner: ME });
    expect(await store.claim('m1', 60_000, previousLife)).toMatchObject({ state: 'claimed' });
    await store.close?.();
  });

  it('idempotency - a claim of another instance stays in progress until its lease ends, saying how long it holds', async () => {
    let now = 1_000;
    const store = await open({ now: () => now });
    await store.claim('m1', 500, otherReplica);
    now += 200;
    expect(await store.claim('m1', 60_000, ME)).toEqual({ state: 'in-progress', owner: otherReplica, leaseLeftMs: 300 });
    now += 300;
    expect(await store.claim('m1', 60_000, ME)).toEqual({ state: 'claimed' });
    await store.close?.();
  });

  it('idempotency - a claim of this very life is in progress, not taken over', async () => {
    const store = await open({ now: () => 1_000 });
    await store.claim('m1', 500, ME);
    expect(await store.claim('m1', 500, { ...ME })).toEqual({ state: 'in-progress', owner: ME, leaseLeftMs: 500 });
    await store.close?.();
  });

  it('idempotency - a done record answers every owner, the previous life included', async () => {
    const store = await open();
    await store.claim('m1', 60_000, previousLife);
    await store.complete('m1', { replyTo: 'memory://r', body: new Uint8Array([7]) }, 60_000);
    for (const owner of [ME, previousLife, otherReplica]) expect((await store.claim('m1', 60_000, owner)).state).toBe('done');
    await store.close?.();
  });
});

describe('idempotency - sqlite store persistence', () => {
  it('idempotency - a restarted instance takes over the claims its previous life left in the file', async () => {
    const path = dbPath();
    const first = await SqliteIdempotencyStore.open({ path });
    first.claim('m1', 60_000, { instance: ME.instance, life: 'life-1' });
    first.claim('m2', 60_000, { instance: 'worker-1', life: 'life-1' });
    await first.close();
    const second = await SqliteIdempotencyStore.open({ path });
    expect(second.claim('m1', 60_000, ME)).toMatchObject({ state: 'claimed', takenOverFrom: { instance: ME.instance, life: 'life-1' } });
    expect(second.claim('m2', 60_000, ME)).toMatchObject({ state: 'in-progress', owner: { instance: 'worker-1' } });
    await second.close();
  });

  it('idempotency - a file of the layout without claim owners opens: its replies answer, its claims wait out their lease', async () => {
    let now = 1_000;
    const path = dbPath();
    const { default: Sqlite } = await import('better-sqlite3');
    const old = new Sqlite(path);
    old.exec('CREATE TABLE dedupe (key TEXT PRIMARY KEY, state INTEGER NOT NULL, reply_to TEXT, body BLOB, expires_at INTEGER NOT NULL)');
    old.exec('CREATE INDEX dedupe_expiry ON dedupe (expires_at)');
    old.prepare('INSERT INTO dedupe VALUES (?, ?, ?, ?, ?)').run('done-1', 1, 'nats://agents.a.responses.i1', Buffer.from('{"reply":1}'), 60_000);
    old.prepare('INSERT INTO dedupe VALUES (?, ?, ?, ?, ?)').run('claimed-1', 0, null, null, 1_500);
    old.close();
    const store = await SqliteIdempotencyStore.open({ path, clock: { now: () => now } });
    const done = store.claim('done-1', 60_000, ME);
    expect(done.state === 'done' && Buffer.from(done.reply!.body).toString()).toBe('{"reply":1}');
    // Nobody knows who held it: it holds until its lease ends, then anyone may claim it.
    expect(store.claim('claimed-1', 60_000, ME)).toEqual({ state: 'in-progress', leaseLeftMs: 500 });
    now = 1_500;
    expect(store.claim('claimed-1', 60_000, ME)).toEqual({ state: 'claimed' });
    expect(store.claim('new-1', 60_000, ME)).toEqual({ state: 'claimed' });
    await store.close();
    // Opening the migrated file again changes nothing.
    const again = await SqliteIdempotencyStore.open({ path, clock: { now: () => now } });
    expect(again.claim('new-1', 60_000, { ...ME, life: 'life-3' })).toMatchObject({ state: 'claimed', takenOverFrom: ME });
    await again.close();
  });

  it('idempotency - replicas opening one new file at the same moment all open it (the layout is set up once)', async () => {
    const path = dbPath();
    const at = Date.now() + 1_500;
    const runs = Array.from({ length: 4 }, () => execFileAsync(process.execPath, ['--import', 'tsx', OPEN_STORE_SCRIPT, path, String(at)]).then(({ stdout }) => stdout, (error: { stdout?: string }) => error.stdout ?? String(error)));
    expect(await Promise.all(runs)).toEqual(['opened', 'opened', 'opened', 'opened']);
  });

  it('idempotency - opening waits while another process holds the write lock, and names the file when the lock outlasts lockWaitMs', async () => {
    const path = dbPath();
    const { default: Sqlite } = await import('better-sqlite3');
    // A replica in the middle of a write, before the file is in WAL mode: SQLite refuses
    // the switch to WAL at once instead of waiting, so the store must wait itself.
    const holder = new Sqlite(path);
    holder.exec('CREATE TABLE other (x)');
    holder.exec('BEGIN IMMEDIATE');
    holder.exec('INSERT INTO other VALUES (1)');
    await expect(SqliteIdempotencyStore.open({ path, lockWaitMs: 100 })).rejects.toThrow(`${path} stayed locked by another process for 100 ms`);
    setTimeout(() => holder.exec('COMMIT'), 200);
    const store = await SqliteIdempotencyStore.open({ path });
    expect(store.claim('m1', 60_000, ME)).toEqual({ state: 'claimed' });
    await store.close();
    holder.close();
  });

  it('idempotency - completed records and their replies survive reopening the file', async () => {
    const path = dbPath();
    const first = await SqliteIdempotencyStore.open({ path });
    first.claim('m1', 60_000, ME);
    first.complete('m1', { replyTo: 'kafka://agents.a.responses.i1', body: Buffer.from('{"reply":1}') }, 60_000);
    first.claim('m2', 60_000, ME);
    await first.close();
    const second = await SqliteIdempotencyStore.open({ path, durability: 'power-loss' });
    const done = second.claim('m1', 60_000, ME);
    expect(done.state).toBe('done');
    expect(done.state === 'done' && Buffer.from(done.reply!.body).toString()).toBe('{"reply":1}');
    expect(second.claim('m2', 60_000, ME).state).toBe('in-progress');
    await second.close();
  });

  it('idempotency - the WAL is copied into the database file by a thread of its own, and nothing of it is left after close', async () => {
    const path = dbPath();
    const store = await SqliteIdempotencyStore.open({ path });
    const body = Buffer.alloc(900, 65);
    // Fewer WAL pages than SQLite's own automatic checkpoint waits for (1,000).
    for (let i = 0; i < 100; i++) {
      store.claim(`m${i}`, 60_000, ME);
      store.complete(`m${i}`, { replyTo: 'nats://r', body }, 60_000);
    }
    await until(() => statSync(path).size > 100 * 900);
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = await SqliteIdempotencyStore.open({ path });
    expect(reopened.claim('m99', 60_000, ME).state).toBe('done');
    await reopened.close();
  });

  it('idempotency - expired rows are deleted a bounded batch at a time, as claims go on', async () => {
    let now = 1_000;
    const path = dbPath();
    const store = await SqliteIdempotencyStore.open({ path, clock: { now: () => now } });
    for (let i = 0; i < 400; i++) store.complete(`old${i}`, undefined, 10);
    now += 10;
    const { default: Sqlite } = await import('better-sqlite3');
    const reader = new Sqlite(path, { readonly: true });
    const rows = (): number => (reader.prepare('SELECT count(*) AS n FROM dedupe').get() as { n: number }).n;
    for (let i = 0; i < 100; i++) store.claim(`new${i}`, 60_000, ME);
    // One sweep so far: 250 of the 400 expired rows, the 100 claims kept.
    expect(rows()).toBe(400 - 250 + 100);
    for (let i = 100; i < 200; i++) store.claim(`new${i}`, 60_000, ME);
    expect(rows()).toBe(200);
    reader.close();
    await store.close();
  });

  it('idempotency - a missing better-sqlite3 is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const error = await SqliteIdempotencyStore.open({ path: dbPath(), loadModule: () => Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' })) }).catch((e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('idempotency - bad options throw TypeError naming the field', async () => {
    await expect(SqliteIdempotencyStore.open({ path: '' })).rejects.toThrow(/path/);
    await expect(SqliteIdempotencyStore.open({ path: dbPath(), durability: 'never' as never })).rejects.toThrow(/durability/);
    await expect(SqliteIdempotencyStore.open({ path: dbPath(), lockWaitMs: -1 })).rejects.toThrow(/lockWaitMs/);
  });
});

describe('idempotency - memory store bounds', () => {
  it('idempotency - the oldest ids are forgotten beyond maxEntries', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) store.claim(id, 60_000, ME);
    expect(store.size).toBe(2);
    expect(store.claim('c', 60_000, ME).state).toBe('in-progress');
  });
});
