import { readFile, stat } from 'node:fs/promises';
import { RpcError } from '../errors.js';
import { headPathOf, parseHead, parseRecord, recomputeHash, sha256Hex, type AuditHead } from './audit-record.js';
import { countNewlines, readFileEnd } from './jsonl-lines.js';
import { listAuditSegments } from './audit-segments.js';
import type { AuditProblem } from './verify-audit-log.js';

/** Where appending continues: the next seq, the last line's byte hash and the file size. */
export interface ResumePoint {
  readonly nextSeq: number;
  readonly prevLineHash: string;
  readonly lastHash: string;
  readonly size: number;
}

/**
 * Reads only the end of an existing log (not all of it: opening must stay fast on a large
 * file) and checks it is safe to chain onto. Undefined for a missing or empty log.
 * Full checking is `verifyAuditLog`'s job; this refuses what would make the chain lie.
 */
export async function resumeChain(path: string): Promise<ResumePoint | undefined> {
  const size = await sizeOf(path);
  const head = await readHead(path);
  if (size === 0) {
    // Just after a rotation (or a crash in it) the chain goes on from the last closed segment.
    const last = (await listAuditSegments(path)).at(-1);
    if (last !== undefined) {
      const point = await resumeFrom(path, last.path, await sizeOf(last.path), head);
      return { ...point, size: 0 };
    }
    if (head !== undefined) {
      throw broken(path, 'truncated', `audit log ${path} is empty but its head file says record ${head.seq} was written: the log was truncated; ${repairOf(path)}`, { headSeq: head.seq });
    }
    return undefined;
  }
  return resumeFrom(path, path, size, head);
}

async function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return 0;
      throw error;
    },
  );
}

function repairOf(path: string): string {
  return `run \`agent-rpc audit verify --file ${path}\` and repair the file before appending`;
}

/** Checks the end of `file` (the log, or its last closed segment) against the head file of the log at `path`. */
async function resumeFrom(logPath: string, path: string, size: number, head: AuditHead | undefined): Promise<ResumePoint> {
  const repair = repairOf(logPath);
  const { lastLine, rest } = await readFileEnd(path, size);
  if (rest.length > 0) {
    const line = (await countNewlines(path)) + 1;
    throw broken(path, 'truncated', `audit log ${path}: line ${line} is incomplete (a torn write or a cut file) and will not be chained onto; ${repair}`, { line });
  }
  const record = lastLine === undefined ? undefined : parseRecord(lastLine.toString('utf8'));
  if (lastLine === undefined || record === undefined) {
    const line = await countNewlines(path);
    throw broken(path, 'malformed', `audit log ${path}: line ${line}, the last one, is not an audit record; ${repair}`, { line });
  }
  if (recomputeHash(record) !== record.hash) {
    const line = await countNewlines(path);
    throw broken(path, 'modified', `audit log ${path}: line ${line}, the last record, does not match its hash (modified); ${repair}`, { line, seq: record.seq });
  }
  if (head !== undefined && head.seq > record.seq) {
    throw broken(path, 'truncated', `audit log ${path} ends at record ${record.seq} but its head file says record ${head.seq} was written: records were cut from the end; ${repair}`, { seq: record.seq, headSeq: head.seq });
  }
  if (head !== undefined && head.seq === record.seq && head.hash !== record.hash) {
    throw broken(path, 'modified', `audit log ${path}: the last record ${record.seq} is not the one its head file names (modified); ${repair}`, { seq: record.seq, headSeq: head.seq });
  }
  return { nextSeq: record.seq + 1, prevLineHash: sha256Hex(lastLine), lastHash: record.hash, size };
}

/** The head file, undefined when there is none; a head file that is not one is an error. */
export async function readHead(path: string): Promise<AuditHead | undefined> {
  const headPath = headPathOf(path);
  const text = await readFile(headPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  const head = parseHead(text);
  if (head === undefined) throw broken(path, 'malformed', `audit head file ${headPath} is not {seq, hash}`);
  return head;
}

/**
 * Opening refuses to chain onto a log whose end cannot be trusted. `details.problem` says
 * why, in verifyAuditLog's words; `line`, `seq` (the last record) and `headSeq` (what the
 * head file names) where they apply.
 */
function broken(path: string, problem: AuditProblem, message: string, where: { line?: number; seq?: number; headSeq?: number } = {}): RpcError {
  return new RpcError('EAGENTRPC_AUDIT_CHAIN_BROKEN', message, { details: { path, problem, ...where } });
}
