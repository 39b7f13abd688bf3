import { CALL_MODES, type CallMode } from '../call-result.js';
import { parseCommandArgs, parseTimeout } from './args.js';
import { callTarget } from './call-target.js';
import { configDir, withCliNode } from './cli-node.js';
import { EXIT, UsageError, type CliCommand } from './command.js';

export const callCommand: CliCommand = {
  path: ['call'],
  summary: 'call a capability of an agent and print the result',
  usage: `agent-rpc call agent://<id> <capability> [--payload '<json>'] [--mode sync|async|fire-and-forget] [--timeout <ms>] [--config <dir>] [--url <daemon>]

  Calls as the agent configured in --config (default $AGENT_RPC_CONFIG or .): its
  transports, peer table and credentials. Prints the call result as JSON, a failed call's
  error as {name, code, message, retriable, details}. Exit 0 when the status is ok, 1 for
  an error or timeout result.

  --url   reach the agent through a running daemon's session API (e.g. the npm start
          fleet at http://127.0.0.1:9464), authenticated with $AGENT_RPC_TOKEN; the
          config directory is then optional.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { payload: { type: 'string' }, mode: { type: 'string' }, timeout: { type: 'string' }, config: { type: 'string' }, url: { type: 'string' } }, true);
    const { to, capability, payload } = callTarget(positionals, values.payload);
    const mode = (values.mode ?? 'sync') as CallMode;
    if (!CALL_MODES.includes(mode)) throw new UsageError(`--mode must be one of ${CALL_MODES.join(', ')}`);
    const timeoutMs = parseTimeout(values.timeout);
    const result = await withCliNode(configDir(values.config, io), io, [to], (node) =>
      node.requestAgent({ to, capability, payload, mode, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }),
      values.url !== undefined ? { url: values.url } : {},
    );
    // An Error's message is not an enumerable property: the error is printed as it crosses the wire.
    io.out(JSON.stringify(result.error ? { ...result, error: { name: result.error.name, ...result.error.toWire() } } : result));
    return result.status === 'ok' ? EXIT.ok : EXIT.problem;
  },
};
