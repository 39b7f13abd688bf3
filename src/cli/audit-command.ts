import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDirOf, loadAgentConfig } from '../config/index.js';
import { iterateAuditLog, verifyAuditLog, auditFiles, type AuditReadFilter, type AuditRecord } from '../audit/index.js';
import { parseCommandArgs, parseLimit, parseSince } from './args.js';
import { configDir } from './cli-node.js';
import { EXIT, UsageError, type CliCommand, type CliIo, type CommandIo } from './command.js';

const DEFAULT_FILE = './data/audit.jsonl';
const FILE_HELP = `--file <path>   the audit log (default: $AGENT_RPC_AUDIT_FILE, else ${DEFAULT_FILE})
  --config <dir>  the audit log of the agent configured there (<dataDir>/audit.jsonl, as
                  agent-rpc serve writes it); not with --file`;
const FILE_OPTIONS = { file: { type: 'string' }, config: { type: 'string' } } as const;

/** --file, else the log of the agent in --config, else $AGENT_RPC_AUDIT_FILE, else ./data/audit.jsonl. */
async function auditFile(values: { file?: string; config?: string }, io: CommandIo): Promise<string> {
  if (values.file !== undefined && values.config !== undefined) throw new UsageError('--file and --config both name the audit log: give one');
  if (values.file !== undefined) return values.file;
  if (values.config !== undefined) {
    const config = await loadAgentConfig(configDir(values.config, io), io.plugins, io.env);
    return join(dataDirOf(config), 'audit.jsonl');
  }
  return io.env['AGENT_RPC_AUDIT_FILE'] || DEFAULT_FILE;
}

/** A missing log (no file and no closed segment of it) is a runtime failure (exit 3), reported in one line. */
async function requireFile(path: string, io: CliIo): Promise<boolean> {
  const exists = (await auditFiles(path)).length > 0;
  if (!exists) io.err(`agent-rpc: audit log ${path} does not exist`);
  return exists;
}

/** time  #seq  kind  decision  peer  provider  subject=… | reason=…  message=… */
export function describeRecord(record: AuditRecord): string {
  const field = (name: string): string => (record[name] === undefined ? '-' : String(record[name]));
  const who = record['subject'] !== undefined ? `subject=${field('subject')}` : record['reason'] !== undefined ? `reason=${field('reason')}` : '-';
  return [record.at, `#${record.seq}`, record.kind, field('decision'), field('peerId'), field('provider'), who, `message=${field('messageId')}`].join('  ');
}

export const auditListCommand: CliCommand = {
  path: ['audit', 'list'],
  summary: 'print audit records, oldest first',
  usage: `agent-rpc audit list [--kind auth_check] [--since <ISO date | 15m | 2h | 1d>] [--limit N] [--json] [--file <path> | --config <dir>]

  One line per record: time, #seq, kind, decision, peer, provider, subject= (accepted)
  or reason= (rejected), message=<messageId>.

  --kind <kind>   only records of this kind (auth_check, ...)
  --since <when>  only records at or after an ISO date/time, or within a duration back
                  from now: 30s, 15m, 2h, 1d
  --limit <N>     only the last N matching records
  --json          the records themselves, one JSON object per line
  ${FILE_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      kind: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      ...FILE_OPTIONS,
    });
    const filter: AuditReadFilter = {
      ...(values.kind !== undefined ? { kind: values.kind } : {}),
      ...(values.since !== undefined ? { since: parseSince(values.since) } : {}),
      ...(values.limit !== undefined ? { limit: parseLimit(values.limit) } : {}),
    };
    const path = await auditFile(values, io);
    if (!(await requireFile(path, io))) return EXIT.failed;
    for await (const record of iterateAuditLog(path, filter)) io.out(values.json ? JSON.stringify(record) : describeRecord(record));
    return EXIT.ok;
  },
};

export const auditVerifyCommand: CliCommand = {
  path: ['audit', 'verify'],
  summary: 'check the hash chain; report the first modified, deleted, reordered or truncated record',
  usage: `agent-rpc audit verify [--json] [--file <path> | --config <dir>]

  Reads the whole log, its closed segments (<file>.<first seq>) first, and checks every
  record's hash, the chain of prev links across them, the seq order and the head file
  (<file>.head). When retention removed the oldest segments, the retained chain must
  start where its audit_retention record says. Prints "ok" and exits 0 when all holds;
  otherwise prints the first problem (modified, deleted, reordered, truncated or
  malformed) with its 0-based record index and line, and exits 1.

  --json          the result as one JSON object
  ${FILE_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' }, ...FILE_OPTIONS });
    const path = await auditFile(values, io);
    if (!(await requireFile(path, io))) return EXIT.failed;
    const hasHead = await stat(`${path}.head`).then(
      () => true,
      () => false,
    );
    const startedAt = performance.now();
    const result = await verifyAuditLog(path);
    const ms = Math.round(performance.now() - startedAt);
    if (values.json) {
      io.out(JSON.stringify({ file: path, ...result, headFile: hasHead, ms }));
    } else if (result.ok) {
      const caveat = hasHead ? '' : '; no head file, so records cut from the end would not show';
      const segments = result.segments === undefined ? '' : ` in ${result.segments} segments`;
      const start = result.chainStart === undefined ? '' : `; chain starts at segment ${result.chainStart.segment} (seq ${result.chainStart.seq}): ${result.chainStart.seq} earlier records removed by retention`;
      io.out(`ok: ${result.records} records${segments}, chain intact (${ms} ms)${start}${caveat}`);
    } else {
      const seq = result.seq === undefined ? '' : `, seq ${result.seq}`;
      const where = result.segment === undefined ? `line ${result.index + 1}` : `segment ${result.segment}`;
      io.out(`${result.problem} at record index ${result.index} (${where}${seq}): ${result.detail}`);
    }
    return result.ok ? EXIT.ok : EXIT.problem;
  },
};
