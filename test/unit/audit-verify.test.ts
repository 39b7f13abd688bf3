import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashRecord } from '../../src/audit/audit-record.js';
import { FileAuditLog, verifyAuditLog, type AuditRecord } from '../../src/audit/index.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const entry = (i: number) => ({
  kind: 'auth_check',
  agentId: 'svc',
  peerId: `agent://p${i % 3}`,
  provider: 'hmac',
  decision: i % 5 === 0 ? 'reject' : 'accept',
  ...(i % 5 === 0 ? { reason: 'bad-signature' } : { subject: `hmac:k-${i % 2}` }),
  messageId: `m-${i}`,
  correlationId: `c-${i}`,
});

async function writeLog(count: number): Promise<string> {
  const path = join(dir, `audit-${n++}.jsonl`);
  const log = await FileAuditLog.open({ path });
  for (let i = 0; i < count; i++) {
    log.append(entry(i));
    // Several batches, as in real traffic.
    if (i % 1000 === 999) await log.flush();
  }
  await log.close();
  return path;
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const rewrite = (path: string, records: string[]): void => writeFileSync(path, records.map((l) => `${l}\n`).join(''));
/** A record edited and given a fresh, valid hash: only the chain can tell. */
function forge(line: string, change: Record<string, unknown>): string {
  const { hash: _hash, ...rest } = { ...(JSON.parse(line) as AuditRecord), ...change };
  return JSON.stringify({ ...rest, hash: hashRecord(rest) });
}

describe('audit verify - intact logs', () => {
  it('audit verify - an untouched log of 5,000 records written in several batches verifies', async () => {
    expect(await verifyAuditLog(await writeLog(5000))).toEqual({ ok: true, records: 5000 });
  });

  it('audit verify - an empty log verifies', async () => {
    const path = join(dir, `empty-${n++}.jsonl`);
    writeFileSync(path, '');
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 0 });
  });

  it('audit verify - a head file one batch behind the log (a crash before its rename) is accepted', async () => {
    const path = await writeLog(10);
    writeFileSync(`${path}.head`, JSON.stringify({ seq: 7, hash: (JSON.parse(lines(path)[7]!) as AuditRecord).hash }));
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 10 });
  });
});

describe('audit verify - modified', () => {
  it('audit verify - a changed field is found at its record', async () => {
    const path = await writeLog(3000);
    const all = lines(path);
    all[1234] = all[1234]!.replace('"decision":"accept"', '"decision":"reject"');
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 1234, seq: 1234, records: 1234 });
  });

  it('audit verify - a record rewritten with a fresh hash is found by the next record’s link', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    all[5] = forge(all[5]!, { decision: 'accept', subject: 'hmac:k-1' });
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 5, seq: 5 });
  });

  it('audit verify - a byte change that parses to the same JSON is found (prev covers the line bytes)', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    all[3] = all[3]!.replace('"seq":3,', '"seq": 3,');
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 3, seq: 3 });
  });

  it('audit verify - the last record rewritten with a fresh hash is found by the head file', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    all[9] = forge(all[9]!, { peerId: 'agent://someone-else' });
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 9, seq: 9 });
  });
});

describe('audit verify - deleted and reordered', () => {
  it('audit verify - a deleted record is found where the gap is', async () => {
    const path = await writeLog(3000);
    const all = lines(path);
    all.splice(2000, 1);
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'deleted', index: 2000, seq: 2001 });
  });

  it('audit verify - deleting the first record is found at index 0', async () => {
    const path = await writeLog(5);
    rewrite(path, lines(path).slice(1));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'deleted', index: 0, seq: 1 });
  });

  it('audit verify - a seq rewritten to hide a deletion, with a fresh hash, is found at the broken link', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    all.splice(4, 1);
    all[4] = forge(all[4]!, { seq: 4 });
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'modified', index: 3, seq: 3 });
  });

  it('audit verify - two swapped records are found at the first of them', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    [all[5], all[6]] = [all[6]!, all[5]!];
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 5, seq: 6 });
  });

  it('audit verify - a record moved back before earlier ones is found where it now stands', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    const [moved] = all.splice(8, 1);
    all.splice(2, 0, moved!);
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 2, seq: 8 });
  });

  it('audit verify - a record moved further down is reordered, not deleted', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    const [moved] = all.splice(2, 1);
    all.splice(6, 0, moved!);
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 2, seq: 3 });
  });

  it('audit verify - a record copied in again is found as seq going backwards', async () => {
    const path = await writeLog(10);
    const all = lines(path);
    all.splice(7, 0, all[3]!);
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'reordered', index: 7, seq: 3 });
  });
});

describe('audit verify - truncated and malformed', () => {
  it('audit verify - a log cut mid-record is truncated at the partial line', async () => {
    const path = await writeLog(10);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, text.length - 20));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated', index: 9, records: 9 });
  });

  it('audit verify - whole records removed from the end are found through the head file', async () => {
    const path = await writeLog(10);
    rewrite(path, lines(path).slice(0, 7));
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated', index: 7, seq: 7, records: 7 });
  });

  it('audit verify - a log emptied behind its head file is truncated at index 0', async () => {
    const path = await writeLog(4);
    writeFileSync(path, '');
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated', index: 0, seq: 0 });
  });

  it('audit verify - a line that is not JSON is malformed at its index', async () => {
    const path = await writeLog(5);
    const all = lines(path);
    all[2] = 'garbage';
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'malformed', index: 2 });
  });

  it('audit verify - a blank line inserted is malformed at its index', async () => {
    const path = await writeLog(5);
    const all = lines(path);
    all.splice(1, 0, '');
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'malformed', index: 1 });
  });

  it('audit verify - the first problem wins when there are several', async () => {
    const path = await writeLog(20);
    const all = lines(path);
    all[15] = all[15]!.replace('"provider":"hmac"', '"provider":"none"');
    all.splice(4, 1);
    rewrite(path, all);
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'deleted', index: 4, seq: 5 });
  });
});
