import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { loadAgentConfig } from '../config/agent-config.js';
import { buildReceiverAuth } from '../config/build-auth.js';
import { toPeerEntries } from '../config/peers-file.js';
import { silentLogger } from '../observability/logger.js';
import { AgentNode } from '../rpc/agent-node.js';
import { normalizeAgentUri } from '../rpc/peer-table.js';
import { createSecretResolver } from '../secrets/resolver.js';
import { transportsFromConfig } from '../runtime/transports-from-config.js';
import type { CliIo } from './command.js';

export function configDir(option: string | undefined, io: CliIo): string {
  return resolve(option ?? io.env['AGENT_RPC_CONFIG'] ?? '.');
}

/**
 * A short-lived caller node for operator commands, built from an agent's config
 * directory: its transports, its peer table (with the peers' auth) and its own signing
 * provider, under the id `<agent>-cli-<random>`. Targets missing from the peer table are
 * reached over the first configured transport.
 */
export async function withCliNode<T>(dir: string, io: CliIo, targets: readonly string[], use: (node: AgentNode) => Promise<T>): Promise<T> {
  const config = await loadAgentConfig(dir, io.env);
  const secrets = createSecretResolver({ env: io.env });
  const peers = config.peers ? await toPeerEntries(config.peers, { resolveSecret: (ref, baseDir) => secrets.resolve(ref, baseDir) }) : [];
  const rpcAuth = config.agent.value.rpc?.auth;
  const auth = rpcAuth
    ? await buildReceiverAuth(rpcAuth, { resolveSecret: (ref) => secrets.resolve(ref, dir), file: config.agent.file, field: 'rpc.auth' })
    : undefined;
  const transports = await transportsFromConfig(config.capabilities.value.transports, { clientId: 'agent-rpc-cli', logger: silentLogger });
  const known = new Set(peers.map((peer) => normalizeAgentUri(peer.id)));
  for (const target of targets) {
    if (!known.has(normalizeAgentUri(target))) peers.push({ id: target, routes: [{ kind: transports[0]!.kind }] });
  }
  const node = new AgentNode({
    id: `${config.agent.value.agent.id}-cli-${randomBytes(3).toString('hex')}`,
    transports,
    peers,
    ...(auth ? { auth } : {}),
    ...(config.agent.value.agent.tenantId ? { tenantId: config.agent.value.agent.tenantId } : {}),
  });
  await node.start();
  try {
    return await use(node);
  } finally {
    await node.close();
  }
}
