import { stat } from 'node:fs/promises';
import { readAuditLog, verifyAuditLog, type AuditRecord } from '../audit/index.js';
import { parseCommandArgs, parseLimit, parseSince } from './args.js';
import { EXIT, type CliCommand, type CliIo } from './command.js';

const FILE_HELP = '--file <path>   the audit log (default $AGENT_RPC_AUDIT_FILE or ./data/audit.jsonl)';

function auditFile(option: string | undefined, io: CliIo): string {
  return option ?? io.env['AGENT_RPC_AUDIT_FILE'] ?? './data/audit.jsonl';
}

async function requireFile(path: string, io: CliIo): Promise<boolean> {
  const exists = await stat(path).then((s) => s.isFile(), () => false);
  if (!exists) io.err(`agent-rpc: audit log ${path} does not exist`);
  return exists;
}

function describe(record: AuditRecord): string {
  const who = record['decision'] === 'accept' ? `subject=${String(record['subject'] ?? '-')}` : `reason=${String(record['reason'] ?? '-')}`;
  const fields = [record.at, `#${record.seq}`, record.kind, String(record['decision'] ?? '-'), String(record['peerId'] ?? '-'), String(record['provider'] ?? '-'), who];
  if (record['messageId'] !== undefined) fields.push(`message=${String(record['messageId'])}`);
  return fields.join('  ');
}

export const auditListCommand: CliCommand = {
  path: ['audit', 'list'],
  summary: 'print audit records, oldest first',
  usage: `agent-rpc audit list [--kind auth_check] [--since <ISO date | 15m | 2h | 7d>] [--limit N] [--json] [--file <path>]

  --kind <kind>   only records of this kind (auth_check, ...)
  --since <when>  only records at or after an ISO date/time or a duration back from now
  --limit <N>     only the last N matching records
  --json          one JSON record per line
  ${FILE_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      kind: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      file: { type: 'string' },
    });
    const filter = {
      ...(values.kind !== undefined ? { kind: values.kind } : {}),
      ...(values.since !== undefined ? { since: parseSince(values.since) } : {}),
      ...(values.limit !== undefined ? { limit: parseLimit(values.limit) } : {}),
    };
    const path = auditFile(values.file, io);
    if (!(await requireFile(path, io))) return EXIT.failed;
    for (const record of await readAuditLog(path, filter)) io.out(values.json ? JSON.stringify(record) : describe(record));
    return EXIT.ok;
  },
};

export const auditVerifyCommand: CliCommand = {
  path: ['audit', 'verify'],
  summary: 'check the hash chain; report the first modified, deleted, reordered or truncated record',
  usage: `agent-rpc audit verify [--json] [--file <path>]

  Exit 0 when the chain is intact, 1 when a record was modified, deleted, reordered or
  the log was truncated (the first problem is printed), 3 when the log cannot be read.

  --json          the result as one JSON object
  ${FILE_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' }, file: { type: 'string' } });
    const path = auditFile(values.file, io);
    if (!(await requireFile(path, io))) return EXIT.failed;
    const startedAt = performance.now();
    const result = await verifyAuditLog(path);
    const ms = Math.round(performance.now() - startedAt);
    if (values.json) io.out(JSON.stringify({ file: path, ...result, ms }));
    else if (result.ok) io.out(`ok: ${result.records} records, chain intact (${ms} ms)`);
    else io.out(`${result.problem} at record index ${result.index} (line ${result.index + 1}): ${result.detail}`);
    return result.ok ? EXIT.ok : EXIT.problem;
  },
};
