import { resolve } from 'node:path';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';

export const serveCommand: CliCommand = {
  path: ['serve'],
  summary: 'run one agent from its config directory until SIGTERM/SIGINT',
  usage: `agent-rpc serve [--config <dir>]...

  Loads agent.yaml, capabilities.yaml and, when present, rpc-peers.yaml and
  event-sources.yaml from the directory (default: $AGENT_RPC_CONFIG or .), connects the
  transports, serves the capabilities plus $ping and $capabilities, and answers /healthz
  and /readyz on agent.yaml's http.port. SIGTERM or SIGINT: stop consuming, finish
  in-flight handlers within limits.drainTimeoutMs, settle waiting calls, exit 0; a second
  signal exits at once with 1. Several --config directories run several agents in one
  process (agents on the memory transport then share its in-process bus).`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { config: { type: 'string', multiple: true } });
    const dirs = (values.config ?? [io.env['AGENT_RPC_CONFIG'] ?? '.']).map((dir) => resolve(dir));
    // Loaded here, not with the command list: the daemon brings the A2A SDK, the flow pages
    // and the session API, which no other command needs, into every CLI start.
    const { startDaemon, serveUntilSignalled } = await import('../runtime/daemon.js');
    const daemon = await startDaemon(dirs, io.plugins, { env: io.env });
    const code = await serveUntilSignalled(daemon);
    // Everything the daemon opened is closed: a broker client still retrying in the
    // background (kafkajs, its broker gone) must not keep the process from exiting.
    process.exit(code);
  },
};
