import { configKinds, loadAgentConfig, routeRequestsTopic } from '../config/index.js';
import { CAPABILITIES_CAPABILITY, PING_CAPABILITY } from '../rpc/index.js';
import { parseCommandArgs, parseTimeout } from './args.js';
import { configDir, withCliNode } from './cli-node.js';
import { EXIT, type CliCommand } from './command.js';
import type { TransportPlugin } from '../transport-plugin.js';

export const rpcPeersCommand: CliCommand = {
  path: ['rpc', 'peers'],
  summary: "print the agent's effective peer table; --verify pings every peer",
  usage: `agent-rpc rpc peers [--verify] [--timeout <ms>] [--json] [--config <dir>]

  --verify   call $ping on every peer's inbox and print the round trip or why it failed
             (exit 1 when any peer is unreachable)`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { verify: { type: 'boolean' }, timeout: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } });
    const timeoutMs = parseTimeout(values.timeout, 5000);
    const dir = configDir(values.config, io);
    const config = await loadAgentConfig(dir, io.plugins, io.env);
    const kinds = configKinds(io.plugins);
    const peers = config.peers?.value.peers ?? [];
    const rows = peers.map((peer) => ({
      id: peer.id.startsWith('agent://') ? peer.id : `agent://${peer.id}`,
      transports: peer.transports.map((route) => [route.kind, routeRequestsTopic(kinds, route)].filter(Boolean).join(':')).join(','),
      auth: peer.auth?.provider ?? 'default',
      verify: undefined as undefined | { ok: boolean; rttMs?: number; reason?: string },
    }));
    if (values.verify && rows.length > 0) {
      await withCliNode(dir, io, [], async (node) => {
        await Promise.all(
          rows.map(async (row, index) => {
            const local = outOfReach(peers[index]!.transports, io.plugins.transports, row.id, PING_CAPABILITY);
            if (local) {
              row.verify = { ok: false, reason: local };
              return;
            }
            const result = await node.requestAgent({ to: row.id, capability: PING_CAPABILITY, payload: null, timeoutMs });
            row.verify = result.status === 'ok' ? { ok: true, rttMs: Number(result.latencyMs.toFixed(2)) } : { ok: false, reason: `${result.error?.code}: ${result.error?.message}` };
          }),
        );
      });
    }
    for (const row of rows) {
      if (values.json) io.out(JSON.stringify(row));
      else io.out([row.id, row.transports, `auth=${row.auth}`, row.verify === undefined ? '' : row.verify.ok ? `ok ${row.verify.rttMs} ms` : `unreachable: ${row.verify.reason}`].join('  ').trimEnd());
    }
    return rows.some((row) => row.verify && !row.verify.ok) ? EXIT.problem : EXIT.ok;
  },
};

export const rpcCapabilitiesCommand: CliCommand = {
  path: ['rpc', 'capabilities'],
  summary: "print this agent's capabilities, or a peer's (--peer)",
  usage: `agent-rpc rpc capabilities [--peer <id>] [--timeout <ms>] [--json] [--config <dir>]

  --peer     ask that peer of rpc-peers.yaml for what it publishes ($capabilities): an
             agent-rpc agent's capabilities, an A2A agent's skills from its card`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { peer: { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } });
    const dir = configDir(values.config, io);
    if (values.peer !== undefined) return printPeerCapabilities(dir, values.peer, parseTimeout(values.timeout, 5000), values.json === true, io);
    const config = await loadAgentConfig(dir, io.plugins, io.env);
    for (const capability of config.capabilities.value.capabilities) {
      if (values.json) io.out(JSON.stringify(capability));
      else io.out(`${capability.name}  timeout=${capability.timeoutMs ?? 'default'}ms  idempotent=${capability.idempotent}  ${capability.description}`.trimEnd());
    }
    return EXIT.ok;
  },
};

type Published = { name: string; description?: string; inputSchema?: unknown };

/**
 * Why this process cannot reach a peer whose every route is process-local (the in-process
 * bus of a fleet running elsewhere), instead of waiting out a $ping that cannot arrive.
 */
function outOfReach(routes: ReadonlyArray<{ kind: string }>, plugins: readonly TransportPlugin[], id: string, capability: string): string | undefined {
  const local = routes.every((route) => plugins.find((plugin) => plugin.kind === route.kind)?.processLocal === true);
  if (!local || routes.length === 0) return undefined;
  const kinds = [...new Set(routes.map((route) => route.kind))].join(', ');
  return `${kinds} reaches agents in their own process only; ask the process running ${id}: agent-rpc call ${id} '${capability}' --url <its daemon>`;
}

async function printPeerCapabilities(dir: string, peer: string, timeoutMs: number, json: boolean, io: Parameters<CliCommand['run']>[1]): Promise<number> {
  const config = await loadAgentConfig(dir, io.plugins, io.env);
  const entry = config.peers?.value.peers.find((candidate) => candidate.id === peer || candidate.id === `agent://${peer}` || `agent://${candidate.id}` === peer);
  const local = entry && outOfReach(entry.transports, io.plugins.transports, entry.id.startsWith('agent://') ? entry.id : `agent://${entry.id}`, CAPABILITIES_CAPABILITY);
  if (local) {
    io.err(`${peer} cannot be asked from here: ${local}`);
    return EXIT.problem;
  }
  const result = await withCliNode(dir, io, [peer], (node) => node.requestAgent<{ capabilities?: Published[] }>({ to: peer, capability: CAPABILITIES_CAPABILITY, payload: null, timeoutMs }));
  if (result.status !== 'ok' || !Array.isArray(result.response?.capabilities)) {
    io.err(`${peer} did not publish its capabilities: ${result.error?.code ?? 'no capability list'}: ${result.error?.message ?? ''}`.trimEnd());
    return EXIT.problem;
  }
  for (const capability of result.response.capabilities) {
    if (json) io.out(JSON.stringify(capability));
    else io.out(`${capability.name}  ${capability.description ?? ''}`.trimEnd());
  }
  return EXIT.ok;
}
