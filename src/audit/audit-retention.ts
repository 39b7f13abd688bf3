import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { sha256Hex } from './audit-record.js';
import { listAuditSegments } from './audit-segments.js';
import { readFileEnd } from './jsonl-lines.js';

/** When the log being written becomes a closed segment. */
export interface AuditRotation {
  /** Bytes of the log before it is closed (at the end of the batch that reaches it). */
  readonly maxBytes?: number;
  /** Age of its first record before it is closed (at the next batch). */
  readonly maxAgeMs?: number;
}

/** How much of the closed segments is kept; checked each time a segment is closed. */
export interface AuditRetention {
  /** Bytes of the closed segments together; the oldest are removed beyond it. */
  readonly maxBytes?: number;
  /** A closed segment is removed once its last record is this old. */
  readonly maxAgeMs?: number;
}

/** What retention removes, and the `audit_retention` record that says so. */
export interface RetentionPlan {
  readonly remove: readonly string[];
  readonly record: {
    readonly kind: 'audit_retention';
    /** The segments removed (file names). */
    readonly removed: readonly string[];
    readonly removedBytes: number;
    readonly reason: 'bytes' | 'age';
    /** The seq of the first record kept: the retained chain starts there. */
    readonly chainStartSeq: number;
    /** That record's `prev`: the hash of the last line removed. */
    readonly chainStartPrev: string;
  };
}

/** The oldest closed segments past a bound, undefined when none is. `activeFirstSeq` is the first seq of the log being written. */
export async function planAuditRetention(path: string, retain: AuditRetention, now: number, activeFirstSeq: number): Promise<RetentionPlan | undefined> {
  const segments = await Promise.all((await listAuditSegments(path)).map(async (segment) => ({ ...segment, info: await stat(segment.path) })));
  let total = segments.reduce((sum, segment) => sum + segment.info.size, 0);
  const remove: typeof segments = [];
  let reason: 'bytes' | 'age' = 'bytes';
  for (const segment of segments) {
    const tooOld = retain.maxAgeMs !== undefined && now - segment.info.mtimeMs > retain.maxAgeMs;
    const tooBig = retain.maxBytes !== undefined && total > retain.maxBytes;
    if (!tooOld && !tooBig) break;
    if (!tooBig) reason = 'age';
    remove.push(segment);
    total -= segment.info.size;
  }
  const last = remove.at(-1);
  if (last === undefined) return undefined;
  const { lastLine } = await readFileEnd(last.path, last.info.size);
  if (lastLine === undefined) return undefined;
  const kept = segments[remove.length];
  return {
    remove: remove.map((segment) => segment.path),
    record: {
      kind: 'audit_retention',
      removed: remove.map((segment) => basename(segment.path)),
      removedBytes: remove.reduce((sum, segment) => sum + segment.info.size, 0),
      reason,
      chainStartSeq: kept?.firstSeq ?? activeFirstSeq,
      chainStartPrev: sha256Hex(lastLine),
    },
  };
}
