import { join } from 'node:path';
import { hostname } from 'node:os';
import { FileAuditLog, type AuditLog } from '../audit/index.js';
import { buildReceiverAuth, toPeerEntries, type AgentConfig } from '../config/index.js';
import { JsonlDlqSink } from '../dlq/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import { noMetrics } from '../observability/index.js';
import type { AgentNodeOptions } from '../rpc/agent-node.js';
import type { SecretResolver } from '../secrets/index.js';
import type { BuildAgentOptions } from './build-agent.js';
import type { DaemonPlugins } from './plugins.js';
import { openSharedStores } from './shared-stores.js';
import { transportsFromConfig } from './transports-from-config.js';

/** What an agent's node is built from besides its config files. */
export interface NodeParts {
  readonly dataDir: string;
  /** Resolves the agent's secret references (masked from its model agents). */
  readonly secrets: SecretResolver;
  /** Where each store opened here puts its close, in the order opened. */
  readonly closers: Array<() => Promise<void>>;
  readonly options: BuildAgentOptions;
}

type Stores = Awaited<ReturnType<typeof openStores>>;

/** Opens the agent's stores (dedupe, audit log, the shared Redis stores), its transports, and the options of its node. */
export async function agentNodeOptions(config: AgentConfig<DaemonPlugins>, parts: NodeParts): Promise<AgentNodeOptions & { readonly audit: AuditLog }> {
  const { agent, capabilities, peers, inbox } = config;
  const { options, secrets } = parts;
  const id = agent.value.agent.id;
  const stores = await openStores(config, parts);
  const auth = await receiverAuthOf(config, secrets, stores);
  const { store: _guardStoreConfig, implicitFlow, ...guardLimits } = agent.value.guard ?? {};
  const peerEntries = peers ? await toPeerEntries(peers, { transports: config.plugins.transports, resolveSecret: (ref, baseDir) => secrets.resolve(ref, baseDir) }) : [];
  const { guardStore } = stores;
  return {
    id,
    transports: await transportsOf(config, parts),
    peers: peerEntries,
    permissions: agent.value.permissions ?? {},
    ...(agent.value.agent.tenantId ? { tenantId: agent.value.agent.tenantId } : {}),
    ...(agent.value.agent.instanceId ? { instanceId: agent.value.agent.instanceId } : {}),
    topics: inbox.topics,
    ...(auth ? { auth } : {}),
    audit: stores.audit,
    ...(guardLimits ? { guard: guardLimits } : {}),
    ...(guardStore ? { guardStore } : {}),
    ...(implicitFlow === undefined ? {} : { implicitFlow }),
    capabilities: capabilities.value.capabilities,
    dlq: new JsonlDlqSink({
      path: join(parts.dataDir, 'dlq.jsonl'),
      retain: agent.value.dlq.retain,
      logger: options.logger.child({ agentId: id }),
      onDropped: (reason, records) => options.metrics?.dlqDropped?.(reason, records),
    }),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...inboxOptionsOf(config, parts.dataDir, stores.idempotency),
    logger: options.logger,
    ...((options.warnSummaryIntervalMs ?? agent.value.log?.summaryIntervalMs) ? { warnSummaryIntervalMs: options.warnSummaryIntervalMs ?? agent.value.log?.summaryIntervalMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
    ...(options.flows ? { flows: options.flows } : {}),
  };
}

async function openStores({ agent, inbox }: AgentConfig, { dataDir, closers, options }: NodeParts) {
  const { logger } = options;
  let idempotency: IdempotencyStore | undefined;
  if (inbox.idempotency?.store === 'sqlite') {
    const { SqliteIdempotencyStore } = await import('../idempotency/sqlite-store.js');
    const sqlite = await SqliteIdempotencyStore.open({ path: join(dataDir, 'dedupe.db') });
    closers.push(async () => sqlite.close());
    idempotency = sqlite;
  }
  const { rotate, retain, exclude } = agent.value.audit;
  // AgentNode binds agentId to its own lines; the stores' lines get it here.
  const audit = await FileAuditLog.open({ path: join(dataDir, 'audit.jsonl'), logger: logger.child({ agentId: agent.value.agent.id }), rotate, retain, exclude });
  closers.push(() => audit.close());
  const shared = await openSharedStores(agent.value, logger, options.metrics ?? noMetrics, closers);
  return { idempotency, audit, ...shared };
}

/** agent.yaml `rpc.auth`: what the agent requires of every envelope it receives. */
async function receiverAuthOf(config: AgentConfig, secrets: SecretResolver, { replayStore, onReplayStoreError }: Stores) {
  const { agent } = config;
  if (!agent.value.rpc?.auth) return undefined;
  return buildReceiverAuth(agent.value.rpc.auth, {
    resolveSecret: (ref: string) => secrets.resolve(ref, config.dir),
    file: agent.file,
    field: 'rpc.auth',
    lineOf: (f: string) => agent.lineOf(['rpc', 'auth', f]),
    ...(replayStore ? { replayStore } : {}),
    ...(onReplayStoreError ? { onReplayStoreError } : {}),
  });
}

function transportsOf(config: AgentConfig<DaemonPlugins>, { secrets, options }: NodeParts) {
  const { agent, capabilities, peers } = config;
  const id = agent.value.agent.id;
  return transportsFromConfig(capabilities.value.transports, config.plugins.transports, {
    agentId: id,
    clientId: id,
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    resolveSecret: (ref) => secrets.resolve(ref, config.dir),
    shared: options.shared ?? new Map(),
    ...(options.remoteNodes ? { remoteNodes: options.remoteNodes } : {}),
    peerRoutes: peers?.value.peers.flatMap((peer) => peer.transports) ?? [],
  });
}

/** The inbox's dedupe and limits (agent.yaml limits, or any event source that agrees on concurrency and maxInflight). */
function inboxOptionsOf({ agent, inbox }: AgentConfig, dataDir: string, store: IdempotencyStore | undefined) {
  const id = agent.value.agent.id;
  const { drainTimeoutMs, pendingCapacity, maxInflight: _maxInflight, concurrency: _concurrency, ...limits } = agent.value.limits ?? {};
  return {
    idempotency: {
      ...(store ? { store } : {}),
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
  };
}
