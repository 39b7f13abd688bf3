/**
 * `agent-rpc/audit`: the hash-chained audit log a node records its decisions in
 * (docs/audit.md), the interface another log implements, and its operator side: reading
 * and verifying a log.
 */
export {
  noAudit,
  FileAuditLog,
  AUDIT_FSYNC_POLICIES,
  verifyAuditLog,
  readAuditLog,
  iterateAuditLog,
  AUDIT_PROBLEMS,
  GENESIS_HASH,
  type AuditFsyncPolicy,
  type AuditRotation,
  type AuditRetention,
  type AuditEntry,
  type AuditLog,
  type AuditRecord,
  type FileAuditLogOptions,
  type AuditReadFilter,
  type AuditProblem,
  type AuditHead,
  type AuditVerifyResult,
} from '../audit/index.js';
