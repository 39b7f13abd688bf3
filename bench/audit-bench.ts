/**
 * `npm run bench:audit [-- --records 1000000]`: writes an audit log of auth_check records
 * with FileAuditLog (fsync per batch) and times `verifyAuditLog` over it.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FileAuditLog, verifyAuditLog } from '../src/audit/index.js';
import { formatTable } from './stats.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000000' } } });
const records = Number(values.records);
if (!Number.isInteger(records) || records < 1) {
  console.error('bench: --records must be a positive integer');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'audit-bench-'));
const path = join(dir, 'audit.jsonl');
const log = await FileAuditLog.open({ path });
let started = performance.now();
for (let i = 0; i < records; i++) {
  log.append({ kind: 'auth_check', agentId: 'svc', peerId: `agent://caller-${i % 16}`, provider: 'hmac', decision: 'accept', subject: 'hmac:fleet-1', messageId: `0193${i}`, correlationId: `0194${i}` });
  // Let the writer run now and then, as traffic would; a tight loop would only queue.
  if (i % 10_000 === 9_999) await log.flush();
}
await log.close();
const writeMs = performance.now() - started;
const sizeMb = statSync(path).size / 1024 / 1024;

started = performance.now();
const result = await verifyAuditLog(path);
const verifyMs = performance.now() - started;
rmSync(dir, { recursive: true, force: true });
if (!result.ok) throw new Error(`verify failed on an untouched log: ${result.problem}`);

console.log(
  formatTable(
    ['audit log', 'records', 'MB', 'write s', 'records/s written', 'verify s', 'records/s verified'],
    [['fsync per batch', records, sizeMb.toFixed(0), (writeMs / 1000).toFixed(2), Math.round(records / (writeMs / 1000)), (verifyMs / 1000).toFixed(2), Math.round(records / (verifyMs / 1000))]],
  ),
);
