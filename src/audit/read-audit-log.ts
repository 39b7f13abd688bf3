import { parseRecord, type AuditRecord } from './audit-record.js';
import { JsonlLines } from './jsonl-lines.js';
import { auditFiles } from './audit-segments.js';
import { positiveInteger } from '../check-integer.js';

export interface AuditReadFilter {
  /** Only records of this kind, e.g. `auth_check`. */
  readonly kind?: string;
  /** Only records at or after this time (a Date or epoch milliseconds). */
  readonly since?: Date | number;
  /** Only the last `limit` matching records (the newest, still oldest first). */
  readonly limit?: number;
}

/**
 * Matching records, oldest first, streamed from the log's closed segments and the file. Lines that are not records, and
 * a cut last line, are skipped: listing is for reading; `verifyAuditLog` reports them.
 * Without `limit` records are yielded as they are read; with it, the last `limit` are
 * held (and only they) until the end of the file.
 */
export async function* iterateAuditLog(path: string, filter: AuditReadFilter = {}): AsyncGenerator<AuditRecord> {
  const { kind, sinceMs, limit } = checkFilter(path, filter);
  // The closed segments first (oldest first), then the log itself.
  const files = await auditFiles(path);
  if (files.length === 0) files.push(path);
  const kept: AuditRecord[] = [];
  let next = 0;
  for (const file of files) for await (const batch of new JsonlLines(file).batches()) {
    const matching: AuditRecord[] = [];
    for (const line of batch) {
      const record = parseRecord(line.toString('utf8'));
      if (record === undefined) continue;
      if (kind !== undefined && record.kind !== kind) continue;
      if (sinceMs !== undefined && !(Date.parse(record.at) >= sinceMs)) continue;
      if (limit === undefined) {
        matching.push(record);
      } else {
        // A ring of the last `limit`: no shifting of a long array.
        kept[next] = record;
        next = (next + 1) % limit;
      }
    }
    yield* matching;
  }
  if (limit !== undefined) {
    if (kept.length < limit) yield* kept;
    else yield* [...kept.slice(next), ...kept.slice(0, next)];
  }
}

/** `iterateAuditLog` collected into an array. */
export async function readAuditLog(path: string, filter: AuditReadFilter = {}): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  for await (const record of iterateAuditLog(path, filter)) records.push(record);
  return records;
}

function checkFilter(path: string, filter: AuditReadFilter): { kind?: string; sinceMs?: number; limit?: number } {
  if (typeof path !== 'string' || path.length === 0) throw new TypeError('readAuditLog: path must be a non-empty string');
  if (typeof filter !== 'object' || filter === null) throw new TypeError('readAuditLog: filter must be an object');
  const { kind, since, limit } = filter;
  if (kind !== undefined && typeof kind !== 'string') throw new TypeError('readAuditLog: filter.kind must be a string');
  const sinceMs = since instanceof Date ? since.getTime() : since;
  if (sinceMs !== undefined && (typeof sinceMs !== 'number' || !Number.isFinite(sinceMs))) {
    throw new RangeError('readAuditLog: filter.since must be a valid Date or epoch milliseconds');
  }
  if (limit !== undefined) positiveInteger(limit, 'readAuditLog: filter.limit');
  return { kind, sinceMs, limit };
}
