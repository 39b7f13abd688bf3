import { resolve } from 'node:path';
import { loadAgentConfig } from '../config/index.js';
import { newMessageId } from '../envelope/index.js';
import { createPinoLogger } from '../observability/pino-logger.js';
import type { ResponsePayload } from '../rpc/index.js';
import { buildAgent } from '../runtime/index.js';
import { remoteNodesOf } from '../remote-nodes/front-door/index.js';
import { maskingResolver, createSecretResolver, SecretMasker } from '../secrets/index.js';
import { formatReplyTo } from '../transport.js';
import { PARAM_NAME_RE, MAX_STEP_TIMEOUT_MS, type WorkflowRunRecord, type WorkflowEvent } from '../workflows/index.js';
import { loadAgentWorkflow } from '../workflows/handler-type/index.js';
import { parseCommandArgs } from './args.js';
import { configDir } from './cli-node.js';
import { EXIT, UsageError, type CliCommand, type CommandIo } from './command.js';
import { RunApprover, type RunApprovalMode } from './run-approvals.js';
import { RunProgress } from './run-progress.js';

/** Who the run's request comes from: the operator at this command, not a peer. */
const RUN_CALLER = 'agent://agent-rpc-run';
/** The longest a step may take: the run's request must not expire before its steps. */
const RUN_DEADLINE_MS = MAX_STEP_TIMEOUT_MS;

export const runCommand: CliCommand = {
  path: ['run'],
  summary: 'run a workflow file as an agent and show its progress',
  usage: `agent-rpc run <workflow.yaml> [--config <dir>] [--param NAME=VALUE]... [--json] [--approve | --deny]

  Starts the agent of --config (default $AGENT_RPC_CONFIG or .) in this process — its
  transports, peers, models and remote nodes — serves the workflow as a capability of it
  and calls it, so the run goes through the agent's inbox like any request. Prints a line
  per step as it starts and ends (status, duration, tokens, cost) and a progress bar,
  then where the run record was written (<dataDir>/runs/<workflow>/<runId>.json).
  Exit 0 when every step succeeded, 1 when a step failed, the run was interrupted or a
  question was declined because nobody could answer it.

  Questions the run asks (a model step's command that needs approval, a peer's question
  relayed up the call) are asked on the terminal, with the command and the rule that
  matched, when stdin and stderr are one; otherwise --approve or --deny answers them, and
  without either each is declined at once with a line on stderr.

  --param    a param for the run, overriding the file's; repeatable. A name the file does
             not declare is allowed when a step refers to it.
  --json     print only the run record, as JSON, with its path as "recordPath".
  --approve  approve every question of the run, without asking (a line on stderr each).
  --deny     decline every question of the run, without asking (a line on stderr each).`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { config: { type: 'string' }, param: { type: 'string', multiple: true }, json: { type: 'boolean' }, approve: { type: 'boolean' }, deny: { type: 'boolean' } },
      true,
    );
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('expected: <workflow.yaml>');
    if (values.approve && values.deny) throw new UsageError('--approve and --deny exclude each other');
    const params = parseParams(values.param ?? []);
    const dir = configDir(values.config, io);
    const config = await loadAgentConfig(dir, io.plugins, io.env);
    const loaded = await loadAgentWorkflow(config.agent, resolve(file), { env: io.env, params: Object.keys(params) });
    const workflow = loaded.value;

    // As `serve` builds an agent: every secret it resolves is kept out of what its models are sent.
    const masker = new SecretMasker();
    const secrets = maskingResolver(createSecretResolver({ env: io.env }), masker);
    const remote = await remoteNodesOf(config, secrets);
    // stdout is the run's; the agent's warnings go to stderr.
    const logger = createPinoLogger({ level: 'warn', destination: process.stderr });
    const tty = !values.json && process.stdout.isTTY === true;
    const progress = new RunProgress({ line: io.out, ...(tty ? { raw: (text: string) => process.stdout.write(text) } : {}) }, workflow.steps.length);
    const messageId = newMessageId();
    const approver = runApprover(messageId, values, io, progress);
    const built = await buildAgent(config, { logger, env: io.env, remoteNodes: remote.resolver, masker, approvals: approver });
    const capability = `workflow:${workflow.name}`;
    let recordPath: string | undefined;
    built.serveWorkflow(capability, loaded, (path) => (recordPath = path));
    const interrupt = (): void => void built.node.inbound.cancel(messageId, 'interrupted (SIGINT)');
    let final: ResponsePayload | undefined;
    try {
      await built.node.start();
      const port = built.node.inbound;
      const body = await port.signOwnRequest({ messageId, from: RUN_CALLER, capability, payload: { params }, replyTo: formatReplyTo('http', `run.${messageId}`), deadline: Date.now() + RUN_DEADLINE_MS });
      process.on('SIGINT', interrupt);
      await port.deliver({
        body,
        deliveryId: messageId,
        onReply: ({ payload }) => {
          if (payload?.ok && payload.progress) {
            // Questions are answered by the approver, in this process; a progress response is a step event.
            if (!values.json && payload.approval === undefined) progress.event(payload.data as WorkflowEvent);
          } else {
            final = payload;
          }
        },
      });
    } finally {
      process.off('SIGINT', interrupt);
      approver.close();
      await built.close();
    }
    const record = recordOf(final);
    if (!record) {
      const reason = final && !final.ok ? `${final.error.code}: ${final.error.message}` : 'no answer';
      io.err(`agent-rpc run: workflow ${workflow.name} did not run: ${reason}`);
      return EXIT.failed;
    }
    if (values.json) io.out(JSON.stringify({ ...record, ...(recordPath === undefined ? {} : { recordPath }) }, null, 2));
    else progress.done(record, recordPath);
    return record.status === 'succeeded' && approver.unanswered === 0 ? EXIT.ok : EXIT.problem;
  },
};

/** Who answers the run's questions: the flags, else the operator on a terminal, else nobody. */
function runApprover(requestId: string, flags: { approve?: boolean; deny?: boolean }, io: CommandIo, progress: RunProgress): RunApprover {
  const line = io.err;
  if (flags.approve) return new RunApprover(requestId, 'approve', { line });
  if (flags.deny) return new RunApprover(requestId, 'deny', { line });
  const terminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const mode: RunApprovalMode = terminal ? 'ask' : 'none';
  return new RunApprover(requestId, mode, {
    line,
    ...(terminal ? { terminal: { input: process.stdin, write: (text: string) => process.stderr.write(text), beforeQuestion: () => progress.clearBar() } } : {}),
  });
}

/** `--param NAME=VALUE`, each once. */
function parseParams(entries: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const name = at === -1 ? entry : entry.slice(0, at);
    if (at === -1 || !PARAM_NAME_RE.test(name)) throw new UsageError(`--param must be NAME=VALUE with NAME a variable name ([A-Za-z_][A-Za-z0-9_]*); got ${JSON.stringify(entry)}`);
    if (Object.hasOwn(params, name)) throw new UsageError(`--param ${name} is given twice`);
    params[name] = entry.slice(at + 1);
  }
  return params;
}

/** The run record of the final answer: the answer itself, or a failed run's error details. */
function recordOf(final: ResponsePayload | undefined): WorkflowRunRecord | undefined {
  if (!final) return undefined;
  if (final.ok) return final.data as WorkflowRunRecord;
  const record = final.error.details?.['record'];
  return typeof record === 'object' && record !== null ? (record as WorkflowRunRecord) : undefined;
}
