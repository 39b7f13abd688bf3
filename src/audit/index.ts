export { noAudit, type AuditEntry, type AuditLog } from './audit-log.js';
export { GENESIS_HASH, type AuditHead, type AuditRecord } from './audit-record.js';
export { type AuditRotation, type AuditRetention } from './audit-retention.js';
export { FileAuditLog } from './file-audit-log.js';
export { AUDIT_FSYNC_POLICIES, type AuditFsyncPolicy, type FileAuditLogOptions } from './file-audit-log-options.js';
export { verifyAuditLog, AUDIT_PROBLEMS, type AuditProblem, type AuditVerifyResult } from './verify-audit-log.js';
export { readAuditLog, iterateAuditLog, type AuditReadFilter } from './read-audit-log.js';
export { auditFiles } from './audit-segments.js';
