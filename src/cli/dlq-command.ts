import { join } from 'node:path';
import { dataDirOf, loadAgentConfig } from '../config/index.js';
import { DLQ_KINDS, JsonlDlqSink, type DlqKind, type DlqRecord } from '../dlq/index.js';
import { REQUEUE_CAPABILITY } from '../rpc/index.js';
import { parseCommandArgs, parseLimit, parseTimeout } from './args.js';
import { configDir, withCliNode } from './cli-node.js';
import { EXIT, UsageError, type CliCommand, type CommandIo } from './command.js';

async function dlqSink(dir: string, io: CommandIo): Promise<{ sink: JsonlDlqSink; agentUri: string }> {
  const config = await loadAgentConfig(dir, io.plugins, io.env);
  const path = join(dataDirOf(config), 'dlq.jsonl');
  return { sink: new JsonlDlqSink({ path }), agentUri: `agent://${config.agent.value.agent.id}` };
}

function summary(record: DlqRecord): string {
  const about = record.envelope ? `${record.envelope.kind} ${record.envelope.from} → ${record.envelope.capability} message=${record.envelope.messageId}` : '(undecodable)';
  return [record.id, new Date(record.at).toISOString(), `${record.kind}/${record.reason}`, about, record.detail].join('  ');
}

export const dlqListCommand: CliCommand = {
  path: ['dlq', 'list'],
  summary: "list the agent's DLQ records, oldest first",
  usage: `agent-rpc dlq list [--kind <kind>] [--limit N] [--json] [--config <dir>]

  --kind   one of ${DLQ_KINDS.join(', ')}`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { kind: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } });
    if (values.kind !== undefined && !DLQ_KINDS.includes(values.kind as DlqKind)) throw new UsageError(`--kind must be one of ${DLQ_KINDS.join(', ')}`);
    const limit = parseLimit(values.limit);
    const { sink } = await dlqSink(configDir(values.config, io), io);
    const records = await sink.list({ ...(values.kind ? { kind: values.kind as DlqKind } : {}), ...(limit ? { limit } : {}) });
    for (const record of records) io.out(values.json ? JSON.stringify(record) : summary(record));
    return EXIT.ok;
  },
};

export const dlqShowCommand: CliCommand = {
  path: ['dlq', 'show'],
  summary: 'print one DLQ record with the bytes it kept',
  usage: `agent-rpc dlq show <id> [--config <dir>]`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { config: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new UsageError('expected one DLQ record id');
    const { sink } = await dlqSink(configDir(values.config, io), io);
    const record = await sink.get(positionals[0]!);
    if (!record) {
      io.err(`agent-rpc dlq show: no DLQ record ${positionals[0]}`);
      return EXIT.problem;
    }
    io.out(JSON.stringify({ ...record, raw: Buffer.from(record.rawBase64, 'base64').toString('utf8') }, null, 2));
    return EXIT.ok;
  },
};

export const dlqRequeueCommand: CliCommand = {
  path: ['dlq', 'requeue'],
  summary: 'send a DLQ record through the running agent again',
  usage: `agent-rpc dlq requeue <id> [--timeout <ms>] [--config <dir>]

  Asks the running agent (its $requeue capability) to publish the record's bytes to the
  topic they came from, releasing the first attempt's dedupe record. Exit 1 if it refuses.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { config: { type: 'string' }, timeout: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new UsageError('expected one DLQ record id');
    const timeoutMs = parseTimeout(values.timeout, 10_000);
    const dir = configDir(values.config, io);
    const { agentUri } = await dlqSink(dir, io);
    const result = await withCliNode(dir, io, [agentUri], (node) => node.requestAgent({ to: agentUri, capability: REQUEUE_CAPABILITY, payload: { id: positionals[0] }, timeoutMs }));
    if (result.status !== 'ok') {
      io.err(`agent-rpc dlq requeue: ${result.error?.code}: ${result.error?.message}`);
      return EXIT.problem;
    }
    io.out(JSON.stringify(result.response));
    return EXIT.ok;
  },
};
