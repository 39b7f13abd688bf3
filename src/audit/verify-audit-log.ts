import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { GENESIS_HASH, headPathOf, recomputeHash, type AuditHead, type AuditRecord } from './audit-record.js';

export const AUDIT_PROBLEMS = ['modified', 'deleted', 'reordered', 'truncated', 'malformed'] as const;
export type AuditProblem = (typeof AUDIT_PROBLEMS)[number];

export type AuditVerifyResult =
  | { readonly ok: true; readonly records: number }
  | {
      readonly ok: false;
      readonly records: number;
      readonly problem: AuditProblem;
      /** 0-based index of the first bad record (its line is index + 1). */
      readonly index: number;
      readonly seq?: number;
      readonly detail: string;
    };

/**
 * Walks the log once, streaming, and reports the first break in the chain:
 * - `modified`: a record's hash does not match its contents;
 * - `deleted`: records are missing (seq jumps ahead and `prev` does not link);
 * - `reordered`: seq goes backwards;
 * - `truncated`: the last line is partial, or the log ends before the record the head file names;
 * - `malformed`: a line that is not a JSON record.
 */
export async function verifyAuditLog(path: string): Promise<AuditVerifyResult> {
  const size = (await stat(path)).size;
  const endsWithNewline = size === 0 || (await lastByte(path, size)) === 0x0a;
  const chain = new ChainCheck();
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  // One line behind, so the last line can be judged knowing whether the file ends in a newline.
  let pending: string | undefined;
  for await (const line of lines) {
    if (pending !== undefined) {
      const failure = chain.next(pending);
      if (failure) return failure;
    }
    pending = line;
  }
  if (pending !== undefined) {
    if (!endsWithNewline) {
      const index = chain.count;
      return { ok: false, records: index, problem: 'truncated', index, detail: `line ${index + 1} ends without a newline: the log was cut mid-record` };
    }
    const failure = chain.next(pending);
    if (failure) return failure;
  }
  return chain.end(await readHead(path));
}

type Failure = Extract<AuditVerifyResult, { ok: false }>;

/** Checks records one at a time against the one before. */
class ChainCheck {
  count = 0;
  private previous: AuditRecord | undefined;
  /** A record that jumped ahead: deleted records, unless the skipped ones turn up next (reordered). */
  private jump: { index: number; seq: number; expected: number } | undefined;

  next(line: string): Failure | undefined {
    const index = this.count;
    const fail = (problem: AuditProblem, detail: string, seq?: number, at = index): Failure => ({
      ok: false,
      records: index,
      problem,
      index: at,
      ...(seq === undefined ? {} : { seq }),
      detail,
    });
    let record: AuditRecord;
    try {
      record = JSON.parse(line) as AuditRecord;
    } catch {
      return fail('malformed', `line ${index + 1} is not JSON`);
    }
    if (typeof record !== 'object' || record === null || !Number.isSafeInteger(record.seq) || typeof record.hash !== 'string' || typeof record.prev !== 'string') {
      return fail('malformed', `line ${index + 1} is not an audit record`);
    }
    if (recomputeHash(record) !== record.hash) return fail('modified', `record ${record.seq} (line ${index + 1}) does not match its hash`, record.seq);
    const jump = this.jump;
    if (jump !== undefined) {
      return record.seq < jump.seq
        ? fail('reordered', `record ${jump.seq} (line ${jump.index + 1}) comes before record ${record.seq}`, jump.seq, jump.index)
        : fail('deleted', `records ${jump.expected}..${jump.seq - 1} are missing before line ${jump.index + 1}`, jump.seq, jump.index);
    }
    const expectedSeq = this.previous === undefined ? 0 : this.previous.seq + 1;
    if (record.seq < expectedSeq) return fail('reordered', `record ${record.seq} (line ${index + 1}) comes after record ${expectedSeq - 1}`, record.seq);
    if (record.seq > expectedSeq) {
      this.jump = { index, seq: record.seq, expected: expectedSeq };
      this.count++;
      return undefined;
    }
    const expectedPrev = this.previous === undefined ? GENESIS_HASH : this.previous.hash;
    if (this.previous === undefined && record.prev !== GENESIS_HASH) return fail('modified', 'the first record does not start the chain', record.seq);
    if (record.prev !== expectedPrev) {
      // This record is intact (its hash matched), so the one before it was rewritten, hash and all.
      return fail('modified', `record ${this.previous!.seq} (line ${index}) was rewritten: record ${record.seq} does not link to it`, this.previous!.seq, index - 1);
    }
    this.previous = record;
    this.count++;
    return undefined;
  }

  end(head: AuditHead | undefined): AuditVerifyResult {
    const records = this.count;
    const jump = this.jump;
    if (jump !== undefined) {
      return { ok: false, records, problem: 'deleted', index: jump.index, seq: jump.seq, detail: `records ${jump.expected}..${jump.seq - 1} are missing before line ${jump.index + 1}` };
    }
    const last = this.previous;
    if (head !== undefined && (last === undefined || last.seq < head.seq)) {
      const detail = `the log ends at seq ${last?.seq ?? '(none)'} but its head file says seq ${head.seq} was written`;
      return { ok: false, records, problem: 'truncated', index: records, seq: last === undefined ? 0 : last.seq + 1, detail };
    }
    if (head !== undefined && last !== undefined && last.seq === head.seq && last.hash !== head.hash) {
      return { ok: false, records, problem: 'modified', index: records - 1, seq: last.seq, detail: 'the last record is not the one the head file names' };
    }
    return { ok: true, records };
  }
}

async function lastByte(path: string, size: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0]!;
  } finally {
    await handle.close();
  }
}

async function readHead(path: string): Promise<AuditHead | undefined> {
  const text = await readFile(headPathOf(path), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as AuditHead;
  } catch {
    return undefined;
  }
}
