import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditRecord } from './audit-record.js';

export interface AuditReadFilter {
  readonly kind?: string;
  /** Records at or after this time. */
  readonly since?: Date;
  /** The last `limit` matching records. */
  readonly limit?: number;
}

/** Matching records, oldest first, streaming the file; lines that are not records are skipped (verify reports them). */
export async function readAuditLog(path: string, filter: AuditReadFilter = {}): Promise<AuditRecord[]> {
  const since = filter.since?.toISOString();
  const out: AuditRecord[] = [];
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    let record: AuditRecord;
    try {
      record = JSON.parse(line) as AuditRecord;
    } catch {
      continue;
    }
    if (filter.kind !== undefined && record.kind !== filter.kind) continue;
    // ISO-8601 UTC strings order like the times they name.
    if (since !== undefined && record.at < since) continue;
    out.push(record);
    if (filter.limit !== undefined && out.length > filter.limit) out.shift();
  }
  return out;
}
