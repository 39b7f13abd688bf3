import { createHash } from 'node:crypto';
import { canonicalJson } from '../envelope/canonical.js';

/** `prev` of the first record: there is nothing before it. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * One line of the audit log: `seq` (0, 1, 2, ...), `at` (ISO time), `kind`, the entry's
 * fields, `prev` (the `hash` of the record before) and `hash`: SHA-256, hex, over the
 * RFC 8785 canonical JSON of the record without `hash`. Because `hash` covers `seq` and
 * `prev`, changing, removing or reordering any record breaks the chain at that point.
 */
export interface AuditRecord {
  readonly seq: number;
  readonly at: string;
  readonly kind: string;
  readonly prev: string;
  readonly hash: string;
  readonly [field: string]: unknown;
}

export function hashRecord(withoutHash: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(withoutHash)).digest('hex');
}

/** The record's own hash, recomputed from its other fields. */
export function recomputeHash(record: AuditRecord): string {
  const { hash: _hash, ...rest } = record;
  return hashRecord(rest);
}

/** The sidecar that remembers the last durable record, so truncation at the end shows. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

export function headPathOf(path: string): string {
  return `${path}.head`;
}
