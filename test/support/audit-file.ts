import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../src/testing/wait.js';

type AuditRecord = Record<string, unknown>;

/** The records of the audit file a daemon keeps in `dataDir` (none while it has written none). */
export function auditFileRecords(dataDir: string): AuditRecord[] {
  const file = join(dataDir, 'audit.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as AuditRecord) : [];
}

/**
 * The records of the daemons' audit files that match, once at least `count` of them are
 * there. A daemon appends its records in the background, so an answer can reach the caller
 * before the record of what caused it is on disk.
 */
export async function auditRecordsOnceWritten(dataDirs: readonly string[], matches: (record: AuditRecord) => boolean, count = 1): Promise<AuditRecord[]> {
  const read = (): AuditRecord[] => dataDirs.flatMap(auditFileRecords).filter(matches);
  await until(() => read().length >= count, 10_000);
  return read();
}
