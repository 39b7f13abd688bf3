import { positiveInteger } from '../check-integer.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AuditRetention, AuditRotation } from './audit-retention.js';

export const AUDIT_FSYNC_POLICIES = ['batch', 'none'] as const;
export type AuditFsyncPolicy = (typeof AUDIT_FSYNC_POLICIES)[number];

export interface FileAuditLogOptions {
  /** The JSONL file; created when missing. The head file is `<path>.head`. */
  readonly path: string;
  /**
   * `batch` (default): each batch is written, then fdatasync'ed, before `flush()` resolves
   * and before the head file moves on. `none`: no fsync; the OS writes back when it likes,
   * so a power loss (not a process crash) may lose seconds of records.
   */
  readonly fsync?: AuditFsyncPolicy;
  /**
   * The longest the head file lags behind the durable records while nobody waits on
   * `flush()` (ms, default 1,000): it moves on at once for a flush, otherwise at most this
   * often while appends stream in, and this long after they stop.
   */
  readonly headEveryMs?: number;
  readonly clock?: Clock;
  /** Told about a write failure, once, when it happens; and (info) of segments retention removed. */
  readonly logger?: Logger;
  /**
   * When the log is closed as a segment `<path>.<first seq, 12 digits>` and a new `<path>`
   * started; the chain runs on across segments. Default: never.
   */
  readonly rotate?: AuditRotation;
  /** How much of the closed segments is kept (checked at each rotation). Default: all. */
  readonly retain?: AuditRetention;
  /** Entries not recorded: a kind (`tool_bash`) or a kind and decision (`auth_check.accept`). */
  readonly exclude?: readonly string[];
}

/** The options' bounds, checked: caller mistakes fail fast. */
function checkBounds(bounds: { readonly maxBytes?: number; readonly maxAgeMs?: number } | undefined, field: string): void {
  if (bounds === undefined) return;
  if (typeof bounds !== 'object' || bounds === null) throw new TypeError(`FileAuditLog.open: options.${field} must be an object`);
  if (bounds.maxBytes !== undefined) positiveInteger(bounds.maxBytes, `FileAuditLog.open: options.${field}.maxBytes`);
  if (bounds.maxAgeMs !== undefined) positiveInteger(bounds.maxAgeMs, `FileAuditLog.open: options.${field}.maxAgeMs`);
}

/** The options, checked (caller mistakes fail fast, naming the field); returns the fsync policy. */
export function checkFileAuditLogOptions(options: FileAuditLogOptions): AuditFsyncPolicy {
  if (typeof options !== 'object' || options === null) throw new TypeError('FileAuditLog.open: options must be an object');
  if (typeof options.path !== 'string' || options.path.length === 0) throw new TypeError('FileAuditLog.open: options.path must be a non-empty string');
  const fsync = options.fsync ?? 'batch';
  if (!AUDIT_FSYNC_POLICIES.includes(fsync)) throw new TypeError(`FileAuditLog.open: options.fsync must be one of ${AUDIT_FSYNC_POLICIES.join(', ')}`);
  if (options.clock !== undefined && typeof options.clock?.now !== 'function') throw new TypeError('FileAuditLog.open: options.clock must have now()');
  if (options.headEveryMs !== undefined) positiveInteger(options.headEveryMs, 'FileAuditLog.open: options.headEveryMs');
  checkBounds(options.rotate, 'rotate');
  checkBounds(options.retain, 'retain');
  if (options.exclude !== undefined && (!Array.isArray(options.exclude) || !options.exclude.every((e) => typeof e === 'string' && e.length > 0))) {
    throw new TypeError('FileAuditLog.open: options.exclude must be an array of non-empty strings');
  }
  return fsync;
}
