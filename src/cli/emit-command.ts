import { parseCommandArgs } from './args.js';
import { callTarget } from './call-target.js';
import { configDir, withCliNode } from './cli-node.js';
import { EXIT, type CliCommand } from './command.js';

export const emitCommand: CliCommand = {
  path: ['emit'],
  summary: 'send an event to a capability of an agent (fire-and-forget)',
  usage: `agent-rpc emit agent://<id> <capability> [--payload '<json>'] [--config <dir>]

  Sends an event as the agent configured in --config (default $AGENT_RPC_CONFIG or .):
  its transports, peer table, permissions and credentials, like a call with
  --mode fire-and-forget (docs/events.md). Prints {status, correlationId} once the event
  is published, or the refusal's error as {name, code, message, retriable, details};
  exit 0 when it was published, 1 when it was refused.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { payload: { type: 'string' }, config: { type: 'string' } }, true);
    const { to, capability, payload } = callTarget(positionals, values.payload);
    const result = await withCliNode(configDir(values.config, io), io, [to], (node) => node.requestAgent({ to, capability, payload, mode: 'fire-and-forget' }));
    io.out(JSON.stringify(result.error ? { status: result.status, error: { name: result.error.name, ...result.error.toWire() } } : { status: result.status, correlationId: result.correlationId }));
    return result.status === 'ok' ? EXIT.ok : EXIT.problem;
  },
};
