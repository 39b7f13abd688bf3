import { hash } from 'node:crypto';
import { canonicalJson } from '../envelope/index.js';

/** `prev` of the first record: there is nothing before it. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * One line of the audit log:
 * `{seq, at, kind, ...entry fields, prev, hash}`.
 *
 * - `seq` counts 0, 1, 2, ... with no gaps; `at` is the ISO-8601 UTC time of the append.
 * - `prev` is SHA-256 (hex) of the previous line's exact bytes, without its newline
 *   (GENESIS_HASH for the first record). Hashing the bytes rather than the parsed record
 *   means any byte change to a line, even one that parses to the same JSON, shows up in
 *   the line after it.
 * - `hash` is SHA-256 (hex) of the RFC 8785 canonical JSON of the record without `hash`:
 *   it covers `seq`, `at`, `kind`, every entry field and `prev`. So a record cannot be
 *   edited without its own hash failing, nor rewritten with a fresh hash without the next
 *   record's `prev` failing, nor removed or moved without `seq` and `prev` failing.
 */
export interface AuditRecord {
  readonly seq: number;
  readonly at: string;
  readonly kind: string;
  readonly prev: string;
  readonly hash: string;
  readonly [field: string]: unknown;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** One-shot hashing: far cheaper per record than a createHash object. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** `hash` of a record, given everything but `hash`. */
export function hashRecord(withoutHash: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(withoutHash));
}

/** The record's own hash, recomputed from its other fields. */
export function recomputeHash(record: AuditRecord): string {
  const { hash: _hash, ...rest } = record;
  return hashRecord(rest);
}

/** The line as a record, or undefined when it is not JSON or lacks the chain fields. */
export function parseRecord(line: string): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const ok =
    Number.isSafeInteger(record['seq']) &&
    (record['seq'] as number) >= 0 &&
    typeof record['at'] === 'string' &&
    typeof record['kind'] === 'string' &&
    typeof record['prev'] === 'string' &&
    HEX64.test(record['prev']) &&
    typeof record['hash'] === 'string' &&
    HEX64.test(record['hash']);
  return ok ? (record as AuditRecord) : undefined;
}

/** The sidecar that names the last durable record, so records cut from the end show. */
export interface AuditHead {
  readonly seq: number;
  /** The `hash` field of that record. */
  readonly hash: string;
}

export function headPathOf(path: string): string {
  return `${path}.head`;
}

export function parseHead(text: string): AuditHead | undefined {
  try {
    const head = JSON.parse(text) as Partial<AuditHead> | null;
    if (head && Number.isSafeInteger(head.seq) && typeof head.hash === 'string' && HEX64.test(head.hash)) return { seq: head.seq!, hash: head.hash };
  } catch {
    // Falls through: not a head.
  }
  return undefined;
}
