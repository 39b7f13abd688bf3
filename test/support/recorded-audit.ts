import type { AuditEntry, AuditLog } from '../../src/audit/audit-log.js';

/** An AuditLog that keeps entries in memory, for tests that check what was recorded. */
export class RecordedAudit implements AuditLog {
  readonly entries: AuditEntry[] = [];

  append(entry: AuditEntry): void {
    this.entries.push(entry);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}

  authChecks(decision?: 'accept' | 'reject'): AuditEntry[] {
    return this.entries.filter((entry) => entry.kind === 'auth_check' && (decision === undefined || entry['decision'] === decision));
  }
}
