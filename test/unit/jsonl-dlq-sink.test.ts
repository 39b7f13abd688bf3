import { appendFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDlqSink } from '../../src/dlq/jsonl-file-sink.js';
import type { DlqRecord } from '../../src/dlq/record.js';

function record(id: string, kind: DlqRecord['kind']): DlqRecord {
  return {
    id, at: 1, agentId: 'a', kind, reason: 'r', detail: 'd', rawBase64: 'AA==', transport: 'memory',
    coordinates: { topic: 't', deliveryId: 't#1' }, attempt: 1,
  };
}

describe('dlq - JSONL file sink', () => {
  it('dlq - records survive reopening, filter by kind and skip a torn last line', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dlq-')), 'dlq.jsonl');
    const sink = new JsonlDlqSink({ path });
    await Promise.all([sink.write(record('1', 'decode-failed')), sink.write(record('2', 'misrouted')), sink.write(record('3', 'decode-failed'))]);
    await sink.close();
    appendFileSync(path, '{"id":"4","kind":"mis');
    const reopened = new JsonlDlqSink({ path });
    expect((await reopened.list()).map((r) => r.id)).toEqual(['1', '2', '3']);
    expect((await reopened.list({ kind: 'decode-failed', limit: 1 })).map((r) => r.id)).toEqual(['3']);
    expect((await reopened.get('2'))?.kind).toBe('misrouted');
    expect(await reopened.get('4')).toBeUndefined();
  });

  it('dlq - retention: past maxRecords or maxAgeMs the oldest rotated files are dropped and reported; listing reads every file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dlq-'));
    const path = join(folder, 'dlq.jsonl');
    let now = 1_000_000;
    const drops: Array<[string, number]> = [];
    const sink = new JsonlDlqSink({ path, fsync: false, retain: { maxRecords: 8, maxAgeMs: 60_000 }, clock: { now: () => now }, onDropped: (reason, records) => drops.push([reason, records]) });
    for (let i = 0; i < 20; i++) await sink.write(record(String(i), 'misrouted'));
    const ids = (await sink.list()).map((r) => Number(r.id));
    expect(ids.length).toBeGreaterThanOrEqual(6);
    expect(ids.length).toBeLessThanOrEqual(8);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 20 - ids.length + i));
    expect(drops.every(([reason]) => reason === 'records')).toBe(true);
    expect(drops.reduce((sum, [, n]) => sum + n, 0)).toBe(20 - ids.length);
    expect(readdirSync(folder).length).toBeGreaterThan(1);
    // Much later, the next write drops every rotated file for age; the newest file stays.
    now += 120_000;
    await sink.write(record('late', 'misrouted'));
    expect(drops.at(-1)?.[0]).toBe('age');
    expect((await sink.list()).map((r) => r.id)).toEqual(['late']);
    await sink.close();
    expect(() => new JsonlDlqSink({ path, retain: { maxRecords: 0 } })).toThrow(RangeError);
  });

  it('dlq - a write that cannot reach the disk rejects (the inbox then redelivers)', async () => {
    const sink = new JsonlDlqSink({ path: join(tmpdir(), 'no-such-dir-', 'x', 'dlq.jsonl') });
    await expect(sink.write(record('1', 'misrouted'))).rejects.toThrow();
    expect(await sink.list()).toEqual([]);
  });
});
