import { appendFileSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileAuditLog, readAuditLog, verifyAuditLog } from '../../src/audit/index.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-segments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => {
  const path = join(dir, `log-${n++}`);
  return path;
};

const entry = (i: number) => ({ kind: 'auth_check', agentId: 'svc', peerId: 'agent://p', provider: 'hmac', decision: 'accept', messageId: `m-${i}`, correlationId: `c-${i}` });

function segmentsOf(path: string): string[] {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return readdirSync(dir).filter((f) => f.startsWith(`${name}.`) && /\.\d{12}$/.test(f)).sort();
}

describe('audit segments', () => {
  it('audit segments - rotation by size within one batch: every segment ends near maxBytes and the chain verifies across them', async () => {
    const path = `${freshDir()}.jsonl`;
    const log = await FileAuditLog.open({ path, rotate: { maxBytes: 1024 } });
    for (let i = 0; i < 40; i++) log.append(entry(i));
    await log.close();
    const segments = segmentsOf(path);
    expect(segments.length).toBeGreaterThan(5);
    expect(segments[0]).toMatch(/\.000000000000$/);
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 40, segments: segments.length + 1 });
    expect((await readAuditLog(path)).map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('audit segments - rotation by age uses the clock: a new segment starts at the first append once the first record is maxAgeMs old', async () => {
    const path = `${freshDir()}.jsonl`;
    let now = Date.parse('2026-11-01T00:00:00Z');
    const log = await FileAuditLog.open({ path, rotate: { maxAgeMs: 60_000 }, clock: { now: () => now } });
    log.append(entry(0));
    await log.flush();
    now += 30_000;
    log.append(entry(1));
    await log.flush();
    expect(segmentsOf(path)).toEqual([]);
    now += 30_000;
    log.append(entry(2));
    await log.close();
    expect(segmentsOf(path)).toHaveLength(1);
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 3, segments: 2 });
  });

  it('audit segments - a crash between closing a segment and writing the next file: opening resumes the chain from the segment', async () => {
    const path = `${freshDir()}.jsonl`;
    const log = await FileAuditLog.open({ path });
    for (let i = 0; i < 3; i++) log.append(entry(i));
    await log.close();
    // What the rename of a rotation leaves when the process dies before the next write.
    renameSync(path, `${path}.000000000000`);
    const reopened = await FileAuditLog.open({ path });
    reopened.append(entry(3));
    await reopened.close();
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 4, segments: 2 });
  });

  it('audit segments - a closed segment cut mid-record is truncated, named by its file', async () => {
    const path = `${freshDir()}.jsonl`;
    const log = await FileAuditLog.open({ path, rotate: { maxBytes: 1024 } });
    for (let i = 0; i < 10; i++) log.append(entry(i));
    await log.close();
    const [first] = segmentsOf(path);
    appendFileSync(join(dir, first!), '{"seq":');
    expect(await verifyAuditLog(path)).toMatchObject({ ok: false, problem: 'truncated' });
  });

  it('audit segments - retention removes the oldest segments, says so in the chain, and verify reports where the chain starts', async () => {
    const path = `${freshDir()}.jsonl`;
    const log = await FileAuditLog.open({ path, rotate: { maxBytes: 1024 }, retain: { maxBytes: 3072 } });
    for (let i = 0; i < 60; i++) log.append(entry(i));
    await log.close();
    const segments = segmentsOf(path);
    const firstSeq = Number(segments[0]!.slice(-12));
    expect(firstSeq).toBeGreaterThan(0);
    const records = await readAuditLog(path);
    expect(records.filter((r) => r.kind === 'audit_retention').at(-1)).toMatchObject({ chainStartSeq: firstSeq });
    expect(await verifyAuditLog(path)).toMatchObject({ ok: true, chainStart: { segment: segments[0], seq: firstSeq } });
  });

  it('audit exclude - a kind, or a kind and decision, is not recorded', async () => {
    const path = `${freshDir()}.jsonl`;
    const log = await FileAuditLog.open({ path, exclude: ['auth_check.accept', 'tool_bash'] });
    log.append(entry(0));
    log.append({ ...entry(1), decision: 'reject' });
    log.append({ kind: 'tool_bash', decision: 'allow' });
    log.append({ kind: 'guard_reject', rule: 'depth' });
    await log.close();
    expect((await readAuditLog(path)).map((r) => [r.kind, r['decision']])).toEqual([
      ['auth_check', 'reject'],
      ['guard_reject', undefined],
    ]);
    await expect(FileAuditLog.open({ path, rotate: { maxBytes: 0 } })).rejects.toThrow(RangeError);
  });
});
