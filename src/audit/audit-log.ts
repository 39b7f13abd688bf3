/**
 * Where security decisions are recorded. The inbox appends without waiting (a decision is
 * never delayed by the disk); `flush()` resolves once everything appended so far is durable.
 */
export interface AuditEntry {
  /** Record type, e.g. `auth_check`. */
  readonly kind: string;
  readonly [field: string]: unknown;
}

export interface AuditLog {
  append(entry: AuditEntry): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The default: records nothing. */
export const noAudit: AuditLog = {
  append: () => {},
  flush: async () => {},
  close: async () => {},
};
