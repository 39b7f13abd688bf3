import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_FILES, configKinds, loadAgentConfig, buildReceiverAuth, toPeerEntries, type AgentConfig } from '../config/index.js';
import { silentLogger } from '../logger.js';
import { noMetrics } from '../observability/index.js';
import { AgentNode } from '../rpc/agent-node.js';
import { normalizeAgentUri, type PeerEntry } from '../rpc/index.js';
import { createSecretResolver, SecretValue, type SecretResolver } from '../secrets/index.js';
import { DEFAULT_REMOTE_TIMEOUT_MS, type RemoteNode, type RemoteNodeResolver } from '../remote-nodes/index.js';
import type { Gateway } from '../gateway.js';
import { gatewaysFromConfig, transportSections, transportsFromConfig } from '../runtime/index.js';
import { remoteNodesOf } from '../remote-nodes/front-door/index.js';
import type { RpcTransport } from '../transport.js';
import { UsageError, type CliIo, type CommandIo } from './command.js';

export function configDir(option: string | undefined, io: CliIo): string {
  return resolve(option ?? io.env['AGENT_RPC_CONFIG'] ?? '.');
}

/** The node a `--url` names: a running daemon's session API, with the token from $AGENT_RPC_TOKEN. */
const URL_NODE = 'daemon';

function urlNode(url: string, io: CliIo): RemoteNode {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--url must be an http:// or https:// URL');
  const token = io.env['AGENT_RPC_TOKEN'];
  return {
    name: URL_NODE,
    description: 'the daemon named by --url',
    apiBaseUrl: parsed.origin,
    authType: token ? 'token' : 'none',
    ...(token ? { authToken: new SecretValue(token) } : {}),
    skipTlsVerify: false,
    timeoutMs: DEFAULT_REMOTE_TIMEOUT_MS,
    source: 'config',
  };
}

export interface CliNodeOptions {
  /** Reach every target through this daemon's session API (`--url`) instead of the configured transports. */
  readonly url?: string;
}

/** The kind of gateway a `--url` reaches every target through: that daemon's session API. */
const URL_GATEWAY = 'http';

/**
 * A short-lived caller node for operator commands, built from an agent's config
 * directory: its transports, its peer table (with the peers' auth), its remote nodes and
 * its own signing provider, under the id `<agent>-cli-<random>`. Targets missing from the
 * peer table are reached over the first configured transport. With `--url`, the config
 * directory is optional and every target is reached through that daemon's session API.
 */
export async function withCliNode<T>(dir: string, io: CommandIo, targets: readonly string[], use: (node: AgentNode) => Promise<T>, options: CliNodeOptions = {}): Promise<T> {
  const secrets = createSecretResolver({ env: io.env });
  const hasConfig = options.url === undefined || existsSync(join(dir, CONFIG_FILES.agent));
  const config = hasConfig ? await loadAgentConfig(dir, io.plugins, io.env) : undefined;
  const { transports, gateways, peers, auth } = config ? await fromConfig(config, dir, secrets, options.url === undefined) : { transports: [], gateways: [], peers: [], auth: undefined };
  if (options.url !== undefined) {
    const node = urlNode(options.url, io);
    const resolver: RemoteNodeResolver = { list: async () => [node], get: async (name) => (name === URL_NODE ? node : undefined) };
    // Through the daemon's session API: the http gateway, with that one node.
    const http = io.plugins.gateways.find((plugin) => plugin.kind === URL_GATEWAY);
    if (!http) throw new TypeError(`--url needs the ${URL_GATEWAY} gateway, which this build does not list`);
    gateways.splice(0, gateways.length, await http.create({}, { agentId: 'agent-rpc-cli', logger: silentLogger, metrics: noMetrics, resolveSecret: (ref) => secrets.resolve(ref, dir), remoteNodes: resolver, routes: [] }));
    transports.splice(0);
    const routed = new Map(peers.map((peer) => [normalizeAgentUri(peer.id), peer]));
    for (const target of targets) routed.set(normalizeAgentUri(target), { ...routed.get(normalizeAgentUri(target)), id: target, routes: [{ kind: URL_GATEWAY, requestsTopic: URL_NODE }] });
    peers.splice(0, peers.length, ...routed.values());
  } else {
    const known = new Set(peers.map((peer) => normalizeAgentUri(peer.id)));
    for (const target of targets) {
      if (!known.has(normalizeAgentUri(target))) peers.push({ id: target, routes: [{ kind: transports[0]!.kind }] });
    }
  }
  const node = new AgentNode({
    id: `${config?.agent.value.agent.id ?? 'agent-rpc'}-cli-${randomBytes(3).toString('hex')}`,
    transports,
    gateways,
    peers,
    ...(auth ? { auth } : {}),
    ...(config?.agent.value.agent.tenantId ? { tenantId: config.agent.value.agent.tenantId } : {}),
  });
  await node.start();
  try {
    return await use(node);
  } finally {
    await node.close();
  }
}

async function fromConfig(config: AgentConfig, dir: string, secrets: SecretResolver, withTransports: boolean) {
  const peers: PeerEntry[] = config.peers ? await toPeerEntries(config.peers, { transports: configKinds(config.plugins), resolveSecret: (ref, baseDir) => secrets.resolve(ref, baseDir) }) : [];
  const rpcAuth = config.agent.value.rpc?.auth;
  const auth = rpcAuth ? await buildReceiverAuth(rpcAuth, { resolveSecret: (ref) => secrets.resolve(ref, dir), file: config.agent.file, field: 'rpc.auth' }) : undefined;
  const transports: RpcTransport[] = [];
  const gateways: Gateway[] = [];
  if (withTransports) {
    const remote = await remoteNodesOf(config, secrets);
    const agentId = config.agent.value.agent.id;
    const resolveSecret = (ref: string) => secrets.resolve(ref, dir);
    transports.push(...(await transportsFromConfig(transportSections(config), config.plugins.transports, { agentId, clientId: 'agent-rpc-cli', logger: silentLogger, resolveSecret, shared: new Map() })));
    gateways.push(...(await gatewaysFromConfig(config, { agentId, logger: silentLogger, resolveSecret, remoteNodes: remote.resolver })));
  }
  return { transports, gateways, peers, auth };
}
