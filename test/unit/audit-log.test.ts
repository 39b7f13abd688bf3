import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileAuditLog, GENESIS_HASH, iterateAuditLog, readAuditLog, verifyAuditLog, type AuditRecord } from '../../src/audit/index.js';
import type { Logger } from '../../src/logger.js';
import { until } from '../../src/testing/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `audit-${n++}.jsonl`);

const entry = (i: number) => ({
  kind: 'auth_check',
  agentId: 'svc',
  peerId: `agent://p${i % 3}`,
  provider: 'hmac',
  decision: i % 5 === 0 ? 'reject' : 'accept',
  messageId: `m-${i}`,
  correlationId: `c-${i}`,
});

async function writeLog(count: number, path = freshPath()): Promise<string> {
  const log = await FileAuditLog.open({ path });
  for (let i = 0; i < count; i++) log.append(entry(i));
  await log.close();
  return path;
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const records = (path: string): AuditRecord[] => lines(path).map((l) => JSON.parse(l) as AuditRecord);
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const head = (path: string): unknown => JSON.parse(readFileSync(`${path}.head`, 'utf8'));

/** A Logger that keeps what it is told. */
function keepingLogger(): Logger & { errors: Array<{ fields: Record<string, unknown>; message: string }> } {
  const errors: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger = {
    errors,
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (fields: Record<string, unknown>, message: string) => errors.push({ fields, message }),
    isLevelEnabled: () => true,
    child: () => logger,
  };
  return logger;
}

describe('audit log - records and chain', () => {
  it('audit log - each record is one JSON line with seq, at, the entry fields, prev and hash', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path, clock: { now: () => Date.parse('2026-11-01T10:00:00Z') } });
    log.append(entry(0));
    log.append(entry(1));
    await log.close();
    const [first, second] = records(path);
    expect(Object.keys(first!)).toEqual(['seq', 'at', 'kind', 'agentId', 'peerId', 'provider', 'decision', 'messageId', 'correlationId', 'prev', 'hash']);
    expect(first).toMatchObject({ seq: 0, at: '2026-11-01T10:00:00.000Z', kind: 'auth_check', decision: 'reject', messageId: 'm-0', prev: GENESIS_HASH });
    // prev is the hash of the previous line's exact bytes.
    expect(second).toMatchObject({ seq: 1, prev: sha256(lines(path)[0]!) });
  });

  it('audit log - an entry cannot set the chain fields', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    log.append({ kind: 'auth_check', seq: 99, at: 'yesterday', prev: 'forged', hash: 'forged' });
    await log.close();
    expect(records(path)[0]).toMatchObject({ seq: 0, prev: GENESIS_HASH });
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 1 });
  });

  it('audit log - the chain resumes across reopen', async () => {
    const path = await writeLog(3);
    const log = await FileAuditLog.open({ path });
    log.append(entry(3));
    await log.close();
    const all = records(path);
    expect(all.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
    expect(all[3]!.prev).toBe(sha256(lines(path)[2]!));
    expect(head(path)).toEqual({ seq: 3, hash: all[3]!.hash });
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 4 });
  });

  it('audit log - caller mistakes throw TypeError naming the field', async () => {
    await expect(FileAuditLog.open({ path: '' })).rejects.toThrow(/options\.path/);
    await expect(FileAuditLog.open({ path: freshPath(), fsync: 'always' as 'batch' })).rejects.toThrow(TypeError);
    const log = await FileAuditLog.open({ path: freshPath() });
    expect(() => log.append({ kind: '' })).toThrow(/entry\.kind/);
    expect(() => log.append({ kind: 'auth_check', score: Number.NaN })).toThrow(TypeError);
    log.append(entry(0));
    await log.close();
    expect(() => log.append(entry(1))).toThrow(expect.objectContaining({ code: 'EAGENTRPC_AUDIT_CLOSED' }));
  });
});

describe('audit log - flush and durability', () => {
  it('audit log - while appends stream in, the head file lags until a flush or until headEveryMs has passed', async () => {
    const path = freshPath();
    let now = 1_000_000;
    const log = await FileAuditLog.open({ path, clock: { now: () => now }, headEveryMs: 60_000 });
    log.append(entry(0));
    await log.flush();
    expect(head(path)).toMatchObject({ seq: 0 });
    for (let i = 1; i <= 5; i++) log.append(entry(i));
    // Written and synced, but no minute has passed on the log's clock: the head still names seq 0.
    await until(() => lines(path).length === 6);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(head(path)).toMatchObject({ seq: 0 });
    // The next batch after the interval moves it to the last durable record.
    now += 60_000;
    log.append(entry(6));
    await until(() => (head(path) as { seq: number }).seq === 6);
    await expect(verifyAuditLog(path)).resolves.toMatchObject({ ok: true });
    await log.close();
  });

  it('audit log - after appends stop, the head catches up within headEveryMs without a flush', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path, headEveryMs: 20 });
    for (let i = 0; i < 3; i++) log.append(entry(i));
    await until(() => existsSync(`${path}.head`) && (head(path) as { seq: number }).seq === 2);
    for (let i = 3; i < 10; i++) log.append(entry(i));
    await until(() => (head(path) as { seq: number }).seq === 9);
    expect(head(path)).toEqual({ seq: 9, hash: records(path)[9]!.hash });
    await log.close();
  });

  it('audit log - a flush moves a lagging head at once', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path, clock: { now: () => 5 }, headEveryMs: 60_000 });
    log.append(entry(0));
    await log.flush();
    log.append(entry(1));
    await until(() => lines(path).length === 2);
    await log.flush();
    expect(head(path)).toEqual({ seq: 1, hash: records(path)[1]!.hash });
    await log.close();
  });

  it('audit log - flush resolves once every earlier append is in the file and named by the head file', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    for (let i = 0; i < 1000; i++) log.append(entry(i));
    await log.flush();
    // Read back independently of the writer.
    const written = records(path);
    expect(written).toHaveLength(1000);
    expect(head(path)).toEqual({ seq: 999, hash: written[999]!.hash });
    log.append(entry(1000));
    await log.flush();
    expect(records(path)).toHaveLength(1001);
    await log.close();
  });

  it('audit log - flush is not starved by appends that keep coming', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    log.append(entry(0));
    let flushed = false;
    const flush = log.flush().then(() => (flushed = true));
    // Keep appending, one record per event-loop turn, until the flush lands (or a cap).
    let appendedAfter = 0;
    while (!flushed && appendedAfter < 200_000) {
      log.append(entry(++appendedAfter));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await flush;
    expect(flushed).toBe(true);
    expect(appendedAfter).toBeLessThan(200_000);
    await log.close();
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: appendedAfter + 1 });
  });

  it('audit log - fsync none writes the same chain', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path, fsync: 'none' });
    for (let i = 0; i < 50; i++) log.append(entry(i));
    await log.close();
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 50 });
  });

  it.skipIf(!existsSync('/dev/full'))('audit log - a write failure does not throw at append; flush and close reject and the logger is told', async () => {
    const path = join(dir, `full-${n++}.jsonl`);
    // /dev/full refuses every write with ENOSPC: a real full disk.
    symlinkSync('/dev/full', path);
    const logger = keepingLogger();
    const log = await FileAuditLog.open({ path, logger });
    log.append(entry(0));
    const writeFailed = { code: 'EAGENTRPC_AUDIT_WRITE_FAILED', details: { path } };
    await expect(log.flush()).rejects.toMatchObject(writeFailed);
    expect(() => log.append(entry(1))).not.toThrow();
    await expect(log.flush()).rejects.toMatchObject(writeFailed);
    await expect(log.close()).rejects.toMatchObject(writeFailed);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]!.fields).toMatchObject({ path, dropped: 1 });
  });
});

describe('audit log - opening an existing log', () => {
  it('audit log - a torn last line is refused on open, naming the file and line', async () => {
    const path = await writeLog(2);
    appendFileSync(path, '{"seq":2,"at":"2026-');
    await expect(FileAuditLog.open({ path })).rejects.toMatchObject({ code: 'EAGENTRPC_AUDIT_CHAIN_BROKEN', details: { path, problem: 'truncated', line: 3 } });
    // Nothing was chained onto it.
    expect(readFileSync(path, 'utf8').endsWith('"at":"2026-')).toBe(true);
  });

  it('audit log - a last record that does not match its hash is refused on open', async () => {
    const path = await writeLog(3);
    const all = lines(path);
    all[2] = all[2]!.replace('"decision":"accept"', '"decision":"reject"');
    writeFileSync(path, `${all.join('\n')}\n`);
    await expect(FileAuditLog.open({ path })).rejects.toMatchObject({ code: 'EAGENTRPC_AUDIT_CHAIN_BROKEN', details: { path, problem: 'modified', line: 3, seq: 2 } });
  });

  it('audit log - a log shorter than its head file is refused on open, so a cut end is not papered over', async () => {
    const path = await writeLog(5);
    writeFileSync(path, `${lines(path).slice(0, 3).join('\n')}\n`);
    await expect(FileAuditLog.open({ path })).rejects.toMatchObject({ code: 'EAGENTRPC_AUDIT_CHAIN_BROKEN', details: { path, problem: 'truncated', seq: 2, headSeq: 4 } });
  });

  it('audit log - an empty or missing file starts a new chain', async () => {
    const path = freshPath();
    writeFileSync(path, '');
    const log = await FileAuditLog.open({ path });
    log.append(entry(0));
    await log.close();
    expect(records(path)[0]).toMatchObject({ seq: 0, prev: GENESIS_HASH });
  });
});

describe('audit log - reading', () => {
  it('audit read - filters by kind and time, keeps the last N, and skips a cut last line', async () => {
    let now = Date.parse('2026-11-01T00:00:00Z');
    const path = freshPath();
    const log = await FileAuditLog.open({ path, clock: { now: () => now } });
    for (let i = 0; i < 6; i++) {
      log.append(i === 2 ? { kind: 'guard_reject', rule: 'depth' } : entry(i));
      now += 60_000;
    }
    await log.close();
    appendFileSync(path, '{"seq":6,');
    const seqs = async (filter: Parameters<typeof readAuditLog>[1]) => (await readAuditLog(path, filter)).map((r) => r.seq);
    expect(await seqs({})).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await seqs({ kind: 'auth_check' })).toEqual([0, 1, 3, 4, 5]);
    expect(await seqs({ since: new Date('2026-11-01T00:03:00Z') })).toEqual([3, 4, 5]);
    expect(await seqs({ since: Date.parse('2026-11-01T00:04:00Z') })).toEqual([4, 5]);
    expect(await seqs({ limit: 2 })).toEqual([4, 5]);
    expect(await seqs({ kind: 'auth_check', limit: 4 })).toEqual([1, 3, 4, 5]);
    expect(await seqs({ limit: 100 })).toEqual([0, 1, 2, 3, 4, 5]);
    const streamed: number[] = [];
    for await (const record of iterateAuditLog(path, { kind: 'guard_reject' })) streamed.push(record.seq);
    expect(streamed).toEqual([2]);
    expect(existsSync(`${path}.head`)).toBe(true);
  });

  it('audit read - a bad filter throws RangeError naming the field', async () => {
    const path = await writeLog(1);
    await expect(readAuditLog(path, { limit: 0 })).rejects.toThrow(/filter\.limit/);
    await expect(readAuditLog(path, { since: new Date('nope') })).rejects.toThrow(RangeError);
  });
});
