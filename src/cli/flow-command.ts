import { flowTreeLines, type FlowView } from '../flow-recording/index.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError, type CliCommand } from './command.js';

const DEFAULT_URL = 'http://127.0.0.1:9464';

export const flowCommand: CliCommand = {
  path: ['flow'],
  summary: 'print one flow (every call of a correlationId) as a tree',
  usage: `agent-rpc flow <correlationId> [--url <daemon>] [--json]

  Asks a running daemon (default ${DEFAULT_URL}, or $AGENT_RPC_URL) for the flow it kept
  (/flows/<correlationId>.json) and prints each call under the call that made it:
  from → to, capability, status, latency, tokens and cost, error code.
  Exit 1 when the daemon keeps no such flow, 3 when it cannot be reached.

  --json  print the daemon's JSON instead of the tree`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { url: { type: 'string' }, json: { type: 'boolean' } }, true);
    const [correlationId, ...extra] = positionals;
    if (correlationId === undefined || extra.length > 0) throw new UsageError('expected one correlationId');
    if (!/^[A-Za-z0-9._:-]{1,200}$/.test(correlationId)) throw new UsageError(`${JSON.stringify(correlationId)} is not a correlationId`);
    const base = (values.url ?? io.env['AGENT_RPC_URL'] ?? DEFAULT_URL).replace(/\/+$/, '');
    let response: Response;
    try {
      response = await fetch(`${base}/flows/${encodeURIComponent(correlationId)}.json`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      io.err(`agent-rpc flow: cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT.failed;
    }
    if (response.status === 404) {
      io.err(`agent-rpc flow: ${base} keeps no flow ${correlationId} (unknown, not sampled, or past its retention)`);
      return EXIT.problem;
    }
    if (!response.ok) {
      io.err(`agent-rpc flow: ${base} answered ${response.status}`);
      return EXIT.failed;
    }
    const view = (await response.json()) as FlowView;
    if (values.json) io.out(JSON.stringify(view));
    else for (const line of flowTreeLines(view)) io.out(line);
    return EXIT.ok;
  },
};
