/**
 * `npm run build && node dist/bench/audit-verify.js [--records 1000000] [--fsync batch|none] [--rotate-bytes N]`
 *
 * Writes an audit log of auth_check records through FileAuditLog (group commit, fsync per
 * batch by default), then times `verifyAuditLog` over the whole file and prints one table.
 * Appends come in bursts with a flush after each, as an inbox under load would see them.
 * `--rotate-bytes N` closes a segment every N bytes (audit.rotate.maxBytes); verify then walks the segments.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AUDIT_FSYNC_POLICIES, FileAuditLog, verifyAuditLog, type AuditFsyncPolicy } from '../src/audit/index.js';
import { auditFiles } from '../src/audit/audit-segments.js';
import { formatTable } from './stats.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    burst: { type: 'string', default: '10000' },
    fsync: { type: 'string', default: 'batch' },
    dir: { type: 'string' },
    'rotate-bytes': { type: 'string' },
  },
});
const records = Number(values.records);
const burst = Number(values.burst);
const fsync = values.fsync as AuditFsyncPolicy;
const rotateBytes = values['rotate-bytes'] === undefined ? undefined : Number(values['rotate-bytes']);
if (rotateBytes !== undefined && (!Number.isSafeInteger(rotateBytes) || rotateBytes < 1)) throw new RangeError('--rotate-bytes must be a positive integer');
if (!Number.isSafeInteger(records) || records < 1) throw new RangeError('--records must be a positive integer');
if (!Number.isSafeInteger(burst) || burst < 1) throw new RangeError('--burst must be a positive integer');
if (!AUDIT_FSYNC_POLICIES.includes(fsync)) throw new RangeError(`--fsync must be one of ${AUDIT_FSYNC_POLICIES.join(', ')}`);

const dir = mkdtempSync(join(values.dir ?? tmpdir(), 'audit-verify-bench-'));
const path = join(dir, 'audit.jsonl');
try {
  const log = await FileAuditLog.open({ path, fsync, ...(rotateBytes === undefined ? {} : { rotate: { maxBytes: rotateBytes } }) });
  const writeStart = performance.now();
  for (let i = 0; i < records; i++) {
    log.append({
      kind: 'auth_check',
      agentId: 'reviewer',
      peerId: `agent://caller-${i % 16}`,
      provider: 'hmac',
      decision: i % 50 === 0 ? 'reject' : 'accept',
      ...(i % 50 === 0 ? { reason: 'bad-signature' } : { subject: 'hmac:fleet-2026' }),
      messageId: `0193a7c2-${i.toString(16).padStart(8, '0')}`,
      correlationId: `0193a7c1-${(i >> 3).toString(16).padStart(8, '0')}`,
    });
    if (i % burst === burst - 1) await log.flush();
  }
  await log.close();
  const writeSeconds = (performance.now() - writeStart) / 1000;
  const megabytes = (await auditFiles(path)).reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024;

  const verifyStart = performance.now();
  const result = await verifyAuditLog(path);
  const verifySeconds = (performance.now() - verifyStart) / 1000;
  if (!result.ok) throw new Error(`verify failed on an untouched log: ${result.problem} at ${result.index}: ${result.detail}`);
  if (result.records !== records) throw new Error(`verify counted ${result.records} records, expected ${records}`);

  console.log(
    formatTable(
      ['audit log', 'records', 'MB', 'write s', 'written/s', 'verify s', 'verified/s', 'max RSS MB'],
      [
        [
          `fsync ${fsync}, flush every ${burst}${rotateBytes === undefined ? '' : `, segments of ${rotateBytes} B`}`,
          records,
          megabytes.toFixed(0),
          writeSeconds.toFixed(2),
          Math.round(records / writeSeconds),
          verifySeconds.toFixed(2),
          Math.round(records / verifySeconds),
          (process.resourceUsage().maxRSS / 1024).toFixed(0),
        ],
      ],
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
