export { noAudit, type AuditEntry, type AuditLog } from './audit-log.js';
export { GENESIS_HASH, type AuditRecord } from './audit-record.js';
export { FileAuditLog, AUDIT_FSYNC_POLICIES, type AuditFsyncPolicy, type FileAuditLogOptions } from './file-audit-log.js';
export { verifyAuditLog, AUDIT_PROBLEMS, type AuditProblem, type AuditVerifyResult } from './verify-audit-log.js';
export { readAuditLog, type AuditReadFilter } from './read-audit-log.js';
