import { hostname } from 'node:os';
import { join } from 'node:path';
import { buildReceiverAuth, configKinds, toPeerEntries, type AgentConfig } from '../config/index.js';
import { JsonlDlqSink } from '../dlq/index.js';
import type { AgentNodeOptions } from '../rpc/agent-node.js';
import type { SecretResolver } from '../secrets/index.js';
import type { AgentStores } from './agent-stores.js';
import type { BuildAgentOptions } from './build-agent.js';
import { gatewaysFromConfig, transportSections } from './gateways-from-config.js';
import { transportsFromConfig } from './transports-from-config.js';

/** What the node's options are built from besides the config files and buildAgent's options. */
export interface NodeParts {
  readonly dataDir: string;
  readonly secrets: SecretResolver;
  readonly stores: AgentStores;
}

/** The AgentNode options of an agent's config files: its transports, gateways, peers, auth, guard, DLQ, dedupe and limits. */
export async function nodeOptionsOf(config: AgentConfig, options: BuildAgentOptions, parts: NodeParts): Promise<AgentNodeOptions> {
  const { agent, capabilities, peers, inbox } = config;
  const { dataDir, secrets, stores } = parts;
  const id = agent.value.agent.id;
  const { store: _guardStoreConfig, implicitFlow, ...guardLimits } = agent.value.guard ?? {};
  // Concurrency and maxInflight come from inbox (agent.yaml limits, or any event source that agrees).
  const { drainTimeoutMs, pendingCapacity, maxInflight: _maxInflight, concurrency: _concurrency, ...limits } = agent.value.limits ?? {};
  const auth = await receiverAuthOf(config, secrets, stores);
  const peerEntries = peers ? await toPeerEntries(peers, { transports: configKinds(config.plugins), resolveSecret: (ref, baseDir) => secrets.resolve(ref, baseDir) }) : [];
  const warnSummaryIntervalMs = options.warnSummaryIntervalMs ?? agent.value.log?.summaryIntervalMs;
  return {
    id,
    transports: await nodeTransportsOf(config, options, secrets),
    gateways: await nodeGatewaysOf(config, options, secrets),
    peers: peerEntries,
    permissions: agent.value.permissions ?? {},
    ...(agent.value.agent.tenantId ? { tenantId: agent.value.agent.tenantId } : {}),
    ...(agent.value.agent.instanceId ? { instanceId: agent.value.agent.instanceId } : {}),
    topics: inbox.topics,
    ...(auth ? { auth } : {}),
    audit: stores.audit,
    ...(guardLimits ? { guard: guardLimits } : {}),
    ...(stores.guardStore ? { guardStore: stores.guardStore } : {}),
    ...(implicitFlow === undefined ? {} : { implicitFlow }),
    capabilities: capabilities.value.capabilities,
    dlq: dlqOf(config, options, dataDir),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    idempotency: {
      ...(stores.idempotency ? { store: stores.idempotency } : {}),
      ...(inbox.idempotency ? { strategy: inbox.idempotency.strategy, ttlMs: inbox.idempotency.ttlMs, leaseMs: inbox.idempotency.leaseMs } : {}),
      // Stable across restarts of this agent on this host with this data directory (where dedupe.db lives).
      instance: agent.value.agent.instanceId ?? `${id}@${hostname()}:${dataDir}`,
    },
    limits: {
      ...limits,
      ...(inbox.concurrency ? { concurrency: inbox.concurrency } : {}),
      ...(pendingCapacity ? { pendingCapacity } : {}),
      ...(inbox.maxInflight ? { maxInflight: inbox.maxInflight } : {}),
    },
    ...(drainTimeoutMs ? { drainTimeoutMs } : {}),
    logger: options.logger,
    ...(warnSummaryIntervalMs ? { warnSummaryIntervalMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
    ...(options.flows ? { flows: options.flows } : {}),
  };
}

/** The transports of capabilities.yaml, created by their plug-ins. */
function nodeTransportsOf(config: AgentConfig, options: BuildAgentOptions, secrets: SecretResolver): Promise<AgentNodeOptions['transports']> {
  const id = config.agent.value.agent.id;
  return transportsFromConfig(transportSections(config), config.plugins.transports, {
    agentId: id,
    clientId: id,
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    resolveSecret: (ref) => secrets.resolve(ref, config.dir),
    shared: options.shared ?? new Map(),
  });
}

/** One gateway of each gateway plug-in, with the remote nodes the agent may call. */
function nodeGatewaysOf(config: AgentConfig, options: BuildAgentOptions, secrets: SecretResolver): Promise<NonNullable<AgentNodeOptions['gateways']>> {
  return gatewaysFromConfig(config, {
    agentId: config.agent.value.agent.id,
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    resolveSecret: (ref) => secrets.resolve(ref, config.dir),
    ...(options.remoteNodes ? { remoteNodes: options.remoteNodes } : {}),
  });
}

/** The DLQ `<dataDir>/dlq.jsonl`, within agent.yaml's bounds. */
function dlqOf(config: AgentConfig, options: BuildAgentOptions, dataDir: string): JsonlDlqSink {
  return new JsonlDlqSink({
    path: join(dataDir, 'dlq.jsonl'),
    retain: config.agent.value.dlq.retain,
    logger: options.logger.child({ agentId: config.agent.value.agent.id }),
    onDropped: (reason, records) => options.metrics?.dlqDropped?.(reason, records),
  });
}

/** What the agent requires of every envelope it receives (agent.yaml `rpc.auth`), none when unset. */
async function receiverAuthOf(config: AgentConfig, secrets: SecretResolver, stores: AgentStores): Promise<AgentNodeOptions['auth']> {
  const { agent } = config;
  if (!agent.value.rpc?.auth) return undefined;
  return buildReceiverAuth(agent.value.rpc.auth, {
    resolveSecret: (ref: string) => secrets.resolve(ref, config.dir),
    file: agent.file,
    field: 'rpc.auth',
    lineOf: (f: string) => agent.lineOf(['rpc', 'auth', f]),
    ...(stores.replayStore ? { replayStore: stores.replayStore } : {}),
    ...(stores.onReplayStoreError ? { onReplayStoreError: stores.onReplayStoreError } : {}),
  });
}
