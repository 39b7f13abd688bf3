import { basename } from 'node:path';
import { GENESIS_HASH, parseRecord, recomputeHash, sha256Hex, type AuditHead } from './audit-record.js';
import { auditFiles } from './audit-segments.js';
import { JsonlLines } from './jsonl-lines.js';
import { readHead } from './resume-chain.js';

export const AUDIT_PROBLEMS = ['modified', 'deleted', 'reordered', 'truncated', 'malformed'] as const;
export type AuditProblem = (typeof AUDIT_PROBLEMS)[number];

export type AuditVerifyResult =
  | {
      readonly ok: true;
      readonly records: number;
      /** Files read (closed segments and the log), when there is more than one. */
      readonly segments?: number;
      /**
       * Where the retained chain starts, when retention removed its beginning: the first
       * file kept and its first record's seq (records 0..seq-1 were removed, as an
       * `audit_retention` record in the chain says).
       */
      readonly chainStart?: { readonly segment: string; readonly seq: number };
    }
  | {
      readonly ok: false;
      /** Records read and found intact before the problem. */
      readonly records: number;
      readonly problem: AuditProblem;
      /** 0-based index of the offending record, which is also its line (index + 1 is the line number). */
      readonly index: number;
      /** The seq of the offending record, when there is one to name. */
      readonly seq?: number;
      readonly detail: string;
      /** The file holding the offending record, when the log has several (closed segments). */
      readonly segment?: string;
    };

type Failure = Extract<AuditVerifyResult, { ok: false }>;

/**
 * Reads the log once, streaming (memory stays flat however long the log), and reports the
 * first problem:
 * - `modified`: a record does not match its hash, or was rewritten with a fresh hash so the
 *   next record's `prev` no longer matches its bytes (reported at the rewritten record);
 * - `deleted`: seq jumps ahead, the chain breaks there, and the skipped records never turn up;
 * - `reordered`: seq goes backwards, or the records skipped at a jump turn up later;
 * - `truncated`: the last line is cut mid-record, or the log ends before the record its
 *   head file names;
 * - `malformed`: a line that is not a JSON audit record (or a head file that is not one).
 * Without a head file, records cut from the end cannot be told apart from a shorter log.
 */
export async function verifyAuditLog(path: string): Promise<AuditVerifyResult> {
  if (typeof path !== 'string' || path.length === 0) throw new TypeError('verifyAuditLog: path must be a non-empty string');
  let head: AuditHead | undefined;
  let headError: string | undefined;
  try {
    head = await readHead(path);
  } catch (error) {
    headError = error instanceof Error ? error.message : String(error);
  }
  const files = await auditFiles(path);
  // A missing log reads as the error it is.
  if (files.length === 0) files.push(path);
  const check = new ChainCheck();
  let tail: Buffer | undefined;
  for (const file of files) {
    const segment = files.length > 1 ? basename(file) : undefined;
    if (tail !== undefined) return withSegment(failure('truncated', check.count, `a segment before ${basename(file)} ends without a newline: it was cut mid-record`), segment);
    const lines = new JsonlLines(file);
    check.file = basename(file);
    for await (const batch of lines.batches()) {
      for (const line of batch) {
        const found = check.next(line);
        if (found) return withSegment(found, segment);
      }
    }
    tail = lines.tail;
  }
  const result = check.end(tail, head, headError);
  if (!result.ok) return withSegment(result, files.length > 1 ? check.file : undefined);
  return { ...result, ...(files.length > 1 ? { segments: files.length } : {}) };
}

function withSegment(found: Failure, segment: string | undefined): Failure {
  return segment === undefined ? found : { ...found, segment };
}

/** Checks each record against the one before it. */
class ChainCheck {
  count = 0;
  /** The file being read. */
  file = '';
  /** The first record, when it is not seq 0: the log's beginning was removed (by retention, if a record says so). */
  private start: { readonly seq: number; readonly prev: string; readonly file: string } | undefined;
  /** The latest `audit_retention` record: where it says the retained chain starts. */
  private retention: { readonly seq: number; readonly chainStartSeq: number; readonly chainStartPrev: string } | undefined;
  private previous: { readonly seq: number; readonly hash: string; readonly lineHash: string } | undefined;
  /**
   * A record that jumped ahead of its expected seq. Whether the skipped seqs were deleted
   * or moved further down is only known by reading on, so the verdict waits.
   */
  private gap: { readonly index: number; readonly seq: number; readonly from: number; readonly to: number } | undefined;

  next(line: Buffer): Failure | undefined {
    const index = this.count++;
    const gap = this.gap;
    if (gap !== undefined) {
      const seq = parseRecord(line.toString('utf8'))?.seq;
      if (seq !== undefined && seq >= gap.from && seq <= gap.to) {
        return failure('reordered', gap.index, `record ${gap.seq} (line ${gap.index + 1}) comes before record ${seq} (line ${index + 1})`, gap.seq);
      }
      return undefined;
    }
    const record = parseRecord(line.toString('utf8'));
    if (record === undefined) return failure('malformed', index, `line ${index + 1} is not a JSON audit record`);
    if (recomputeHash(record) !== record.hash) return failure('modified', index, `record ${record.seq} (line ${index + 1}) does not match its hash`, record.seq);
    if (record.kind === 'audit_retention' && Number.isSafeInteger(record['chainStartSeq']) && typeof record['chainStartPrev'] === 'string') {
      this.retention = { seq: record.seq, chainStartSeq: record['chainStartSeq'] as number, chainStartPrev: record['chainStartPrev'] };
    }
    if (this.previous === undefined && index === 0 && record.seq > 0) {
      // Judged at the end, against what the retention records say was removed.
      this.start = { seq: record.seq, prev: record.prev, file: this.file };
      this.previous = { seq: record.seq, hash: record.hash, lineHash: sha256Hex(line) };
      return undefined;
    }
    const previous = this.previous;
    const expectedSeq = previous === undefined ? 0 : previous.seq + 1;
    const expectedPrev = previous === undefined ? GENESIS_HASH : previous.lineHash;
    if (record.seq < expectedSeq) {
      return failure('reordered', index, `record ${record.seq} (line ${index + 1}) comes after record ${expectedSeq - 1}`, record.seq);
    }
    if (record.seq > expectedSeq) {
      // The link still holds, so nothing is missing: this record's seq was rewritten.
      if (record.prev === expectedPrev) return failure('modified', index, `record ${record.seq} (line ${index + 1}) links to record ${expectedSeq - 1} but has a different seq`, record.seq);
      this.gap = { index, seq: record.seq, from: expectedSeq, to: record.seq - 1 };
      return undefined;
    }
    if (record.prev !== expectedPrev) {
      // This record is intact, so the line before it changed while keeping a valid hash.
      if (previous === undefined) return failure('modified', index, 'the first record does not start the chain', record.seq);
      return failure('modified', index - 1, `record ${previous.seq} (line ${index}) was changed (or record ${record.seq} after it rewritten): the link between them is broken`, previous.seq);
    }
    this.previous = { seq: record.seq, hash: record.hash, lineHash: sha256Hex(line) };
    return undefined;
  }

  end(tail: Buffer | undefined, head: AuditHead | undefined, headError: string | undefined): AuditVerifyResult {
    const gap = this.gap;
    if (gap !== undefined) {
      const missing = gap.from === gap.to ? `record ${gap.from} is` : `records ${gap.from}..${gap.to} are`;
      return failure('deleted', gap.index, `${missing} missing before line ${gap.index + 1}`, gap.seq);
    }
    const index = this.count;
    const last = this.previous;
    const nextSeq = last === undefined ? 0 : last.seq + 1;
    if (tail !== undefined) return failure('truncated', index, `line ${index + 1} ends without a newline: the log was cut mid-record`, nextSeq);
    if (headError !== undefined) return failure('malformed', index, headError);
    if (head !== undefined && head.seq >= nextSeq) {
      return failure('truncated', index, `the log ends at record ${last?.seq ?? '(none)'} but its head file says record ${head.seq} was written`, nextSeq);
    }
    if (head !== undefined && last !== undefined && head.seq === last.seq && head.hash !== last.hash) {
      return failure('modified', index - 1, `record ${last.seq} (line ${index}) is not the one the head file names`, last.seq);
    }
    const start = this.start;
    if (start !== undefined) {
      const retention = this.retention;
      const from = retention === undefined ? 0 : retention.chainStartSeq;
      if (start.seq > from) {
        const missing = from === start.seq - 1 ? `record ${from} is` : `records ${from}..${start.seq - 1} are`;
        const said = retention === undefined ? 'no audit_retention record says retention removed them' : `retention (record ${retention.seq}) removed only the records before ${from}`;
        return failure('deleted', 0, `${missing} missing before the first record (${start.file}): ${said}`, start.seq);
      }
      if (start.seq === from && start.prev !== retention!.chainStartPrev) {
        return failure('modified', 0, `the first record ${start.seq} (${start.file}) does not link to the record retention removed before it`, start.seq);
      }
    }
    // A head behind the log is fine: a crash between syncing a batch and renaming the head.
    return { ok: true, records: index, ...(start === undefined ? {} : { chainStart: { segment: start.file, seq: start.seq } }) };
  }
}

function failure(problem: AuditProblem, index: number, detail: string, seq?: number): Failure {
  return { ok: false, records: index, problem, index, ...(seq === undefined ? {} : { seq }), detail };
}
