import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashRecord } from '../../src/audit/audit-record.js';
import { FileAuditLog, GENESIS_HASH, readAuditLog, verifyAuditLog, type AuditRecord } from '../../src/audit/index.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-'));
let n = 0;
const freshPath = (): string => join(dir, `audit-${n++}.jsonl`);

const entry = (i: number) => ({ kind: 'auth_check', peerId: `agent://p${i % 3}`, provider: 'hmac', decision: i % 5 === 0 ? 'reject' : 'accept', messageId: `m-${i}`, correlationId: `c-${i}` });

async function writeLog(count: number, path = freshPath()): Promise<string> {
  const log = await FileAuditLog.open({ path });
  for (let i = 0; i < count; i++) log.append(entry(i));
  await log.close();
  return path;
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const rewrite = (path: string, records: string[]): void => writeFileSync(path, records.map((l) => `${l}\n`).join(''));

describe('audit log - writing', () => {
  it('audit - records are chained, one JSON line each, and flush makes them durable with the head file', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    log.append(entry(0));
    log.append(entry(1));
    await log.flush();
    const records = lines(path).map((l) => JSON.parse(l) as AuditRecord);
    expect(records.map((r) => r.seq)).toEqual([0, 1]);
    expect(records[0]!.prev).toBe(GENESIS_HASH);
    expect(records[1]!.prev).toBe(records[0]!.hash);
    expect(records[0]).toMatchObject({ kind: 'auth_check', peerId: 'agent://p0', decision: 'reject', messageId: 'm-0' });
    expect(JSON.parse(readFileSync(`${path}.head`, 'utf8'))).toEqual({ seq: 1, hash: records[1]!.hash });
    await log.close();
  });

  it('audit - an entry cannot overwrite the chain fields', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    log.append({ kind: 'auth_check', seq: 99, prev: 'forged', hash: 'forged' });
    await log.close();
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 1 });
  });

  it('audit - reopening resumes the chain', async () => {
    const path = await writeLog(3);
    const log = await FileAuditLog.open({ path });
    log.append(entry(3));
    await log.close();
    expect(lines(path).map((l) => (JSON.parse(l) as AuditRecord).seq)).toEqual([0, 1, 2, 3]);
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 4 });
  });

  it('audit - a torn last line is refused on open, never chained onto', async () => {
    const path = await writeLog(2);
    appendFileSync(path, '{"seq":2,"at":"2026-');
    await expect(FileAuditLog.open({ path })).rejects.toThrow(/line 3 is incomplete/);
  });

  it('audit - a write failure surfaces on flush instead of crashing', async () => {
    const path = freshPath();
    const log = await FileAuditLog.open({ path });
    // Closing the handle underneath makes the next write fail.
    await (log as unknown as { file: { close(): Promise<void> } }).file.close();
    log.append(entry(0));
    await expect(log.flush()).rejects.toThrow();
  });

  it('audit - list filters by kind and time and keeps the last N', async () => {
    let now = Date.parse('2026-11-01T00:00:00Z');
    const path = freshPath();
    const log = await FileAuditLog.open({ path, clock: { now: () => now } });
    for (let i = 0; i < 6; i++) {
      log.append(i === 2 ? { kind: 'guard_reject', rule: 'depth' } : entry(i));
      now += 60_000;
    }
    await log.close();
    expect((await readAuditLog(path, { kind: 'auth_check' })).map((r) => r.seq)).toEqual([0, 1, 3, 4, 5]);
    expect((await readAuditLog(path, { since: new Date('2026-11-01T00:03:00Z') })).map((r) => r.seq)).toEqual([3, 4, 5]);
    expect((await readAuditLog(path, { limit: 2 })).map((r) => r.seq)).toEqual([4, 5]);
    expect(existsSync(`${path}.head`)).toBe(true);
  });
});

describe('audit log - tampering is found at the right place', () => {
  it('audit - an untouched log of 5,000 records verifies', async () => {
    expect(await verifyAuditLog(await writeLog(5000))).toEqual({ ok: true, records: 5000 });
  });

  it('audit - a modified record', async () => {
    const path = await writeLog(10);
    const records = lines(path);
    records[4] = records[4]!.replace('"decision":"accept"', '"decision":"reject"');
    rewrite(path, records);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 4, seq: 4 });
  });

  it('audit - a modified record whose hash was recomputed breaks the link of the next one', async () => {
    const path = await writeLog(10);
    const records = lines(path).map((l) => JSON.parse(l) as AuditRecord);
    expect(records[5]!['decision']).toBe('reject');
    const { hash: _h, ...rest } = { ...records[5]!, decision: 'accept' };
    records[5] = { ...rest, hash: hashRecord(rest) } as AuditRecord;
    rewrite(path, records.map((r) => JSON.stringify(r)));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 5, seq: 5 });
  });

  it('audit - a deleted record', async () => {
    const path = await writeLog(10);
    const records = lines(path);
    records.splice(3, 1);
    rewrite(path, records);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'deleted', index: 3, seq: 4 });
  });

  it('audit - two records swapped', async () => {
    const path = await writeLog(10);
    const records = lines(path);
    [records[5], records[6]] = [records[6]!, records[5]!];
    rewrite(path, records);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 5, seq: 6 });
  });

  it('audit - a record moved back before earlier ones', async () => {
    const path = await writeLog(10);
    const records = lines(path);
    const [moved] = records.splice(8, 1);
    records.splice(2, 0, moved!);
    rewrite(path, records);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 2, seq: 8 });
  });

  it('audit - cut mid-record', async () => {
    const path = await writeLog(10);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, text.length - 20));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated', index: 9 });
  });

  it('audit - whole records removed from the end', async () => {
    const path = await writeLog(10);
    rewrite(path, lines(path).slice(0, 7));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated', index: 7, seq: 7 });
  });

  it('audit - a line that is not JSON', async () => {
    const path = await writeLog(5);
    const records = lines(path);
    records[2] = 'garbage';
    rewrite(path, records);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'malformed', index: 2 });
  });
});
