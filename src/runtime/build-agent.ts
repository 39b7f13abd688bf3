import type { TracerProvider } from '@opentelemetry/api';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { FileAuditLog, type AuditLog } from '../audit/index.js';
import { dataDirOf, buildReceiverAuth, toPeerEntries, type AgentConfig } from '../config/index.js';
import { JsonlDlqSink } from '../dlq/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import type { Logger } from '../logger.js';
import { noMetrics, type RpcMetrics, type FlowObserver } from '../observability/index.js';
import { AgentNode } from '../rpc/agent-node.js';
import { createSecretResolver, SecretMasker, maskingResolver } from '../secrets/index.js';
import type { DaemonPlugins } from './plugins.js';
import type { ApprovalGate } from '../rpc/index.js';
import { transportsFromConfig, type TransportContext } from './transports-from-config.js';
import { ModelAgents } from './model-agents.js';
import { workflowCapability } from './workflow-handlers.js';
import type { LoadedWorkflow, WorkflowRunRecord } from '../workflows/index.js';
import { remoteNodesFromConfig } from '../remote-nodes/remote-nodes-config.js';
import { mergedResolver } from '../remote-nodes/index.js';
import { openSharedStores } from './shared-stores.js';

export interface BuildAgentOptions {
  readonly logger: Logger;
  readonly metrics?: RpcMetrics;
  /** Per-process state the transports of several agents share, keyed by kind (the memory bus). Default: this agent's own. */
  readonly shared?: Map<string, unknown>;
  readonly env?: NodeJS.ProcessEnv;
  /** This agent's remote nodes, which transports that call them (http) are given. */
  readonly remoteNodes?: TransportContext['remoteNodes'];
  /** Answers handlers' approval prompts (the session API). */
  readonly approvals?: ApprovalGate;
  /** The secrets model agents must never send or log (the process's API tokens join the agent's own). Default: this agent's own. */
  readonly masker?: SecretMasker;
  /** Where the node's spans go (`agent-rpc serve` passes the SDK it set up). Default: the OpenTelemetry API's global provider. */
  readonly tracerProvider?: TracerProvider;
  /** The process's log.summaryIntervalMs (the first agent's). Default: this agent's own. */
  readonly warnSummaryIntervalMs?: number;
  /** Hears each call the agent makes and handles (the daemon's flow recorder). */
  readonly flows?: FlowObserver;
}

/** An agent node wired from its config files, with the files it keeps (DLQ, audit, dedupe). */
export interface BuiltAgent {
  readonly node: AgentNode;
  readonly config: AgentConfig<DaemonPlugins>;
  /** Its audit log (`<dataDir>/audit.jsonl`): `flush()` before reading the file for what a call just did. */
  readonly audit: AuditLog;
  /**
   * Serves a workflow as `capability` besides the configured handlers (`agent-rpc run`);
   * `onRecord` hears where each run's record was written.
   */
  serveWorkflow(capability: string, workflow: LoadedWorkflow, onRecord?: (path: string, record: WorkflowRunRecord) => void): void;
  /** Closes the node (drain, settle) and then its stores. */
  close(): Promise<void>;
}

export async function buildAgent(config: AgentConfig<DaemonPlugins>, options: BuildAgentOptions): Promise<BuiltAgent> {
  const { agent, capabilities, peers, inbox } = config;
  const id = agent.value.agent.id;
  const dataDir = dataDirOf(config);
  await mkdir(dataDir, { recursive: true });
  const env = options.env ?? process.env;
  // Every secret this agent resolves is also kept out of what its model agents send and log.
  const masker = options.masker ?? new SecretMasker();
  masker.addEnvironment(env);
  const secrets = maskingResolver(createSecretResolver({ env }), masker);
  // AgentNode binds agentId to its own lines; the stores' lines get it here.
  const logger = options.logger;

  const closers: Array<() => Promise<void>> = [];
  let store: IdempotencyStore | undefined;
  if (inbox.idempotency?.store === 'sqlite') {
    const { SqliteIdempotencyStore } = await import('../idempotency/sqlite-store.js');
    const sqlite = await SqliteIdempotencyStore.open({ path: join(dataDir, 'dedupe.db') });
    closers.push(async () => sqlite.close());
    store = sqlite;
  }
  const { rotate, retain, exclude } = agent.value.audit;
  const audit = await FileAuditLog.open({ path: join(dataDir, 'audit.jsonl'), logger: logger.child({ agentId: id }), rotate, retain, exclude });
  closers.push(() => audit.close());
  const { guardStore, replayStore, onReplayStoreError } = await openSharedStores(agent.value, logger, options.metrics ?? noMetrics, closers);
  const authContext = {
    resolveSecret: (ref: string) => secrets.resolve(ref, config.dir),
    file: agent.file,
    field: 'rpc.auth',
    lineOf: (f: string) => agent.lineOf(['rpc', 'auth', f]),
    ...(replayStore ? { replayStore } : {}),
    ...(onReplayStoreError ? { onReplayStoreError } : {}),
  };
  const auth = agent.value.rpc?.auth ? await buildReceiverAuth(agent.value.rpc.auth, authContext) : undefined;
  const { store: _guardStoreConfig, implicitFlow, ...guardLimits } = agent.value.guard ?? {};
  const peerEntries = peers ? await toPeerEntries(peers, { transports: config.plugins.transports, resolveSecret: (ref, baseDir) => secrets.resolve(ref, baseDir) }) : [];
  // Concurrency and maxInflight come from inbox (agent.yaml limits, or any event source that agrees).
  const { drainTimeoutMs, pendingCapacity, maxInflight: _maxInflight, concurrency: _concurrency, ...limits } = agent.value.limits ?? {};
  const node = new AgentNode({
    id,
    transports: await transportsFromConfig(capabilities.value.transports, config.plugins.transports, {
      agentId: id,
      clientId: id,
      logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      resolveSecret: (ref) => secrets.resolve(ref, config.dir),
      shared: options.shared ?? new Map(),
      ...(options.remoteNodes ? { remoteNodes: options.remoteNodes } : {}),
      peerRoutes: peers?.value.peers.flatMap((peer) => peer.transports) ?? [],
    }),
    peers: peerEntries,
    permissions: agent.value.permissions ?? {},
    ...(agent.value.agent.tenantId ? { tenantId: agent.value.agent.tenantId } : {}),
    ...(agent.value.agent.instanceId ? { instanceId: agent.value.agent.instanceId } : {}),
    topics: inbox.topics,
    ...(auth ? { auth } : {}),
    audit,
    ...(guardLimits ? { guard: guardLimits } : {}),
    ...(guardStore ? { guardStore } : {}),
    ...(implicitFlow === undefined ? {} : { implicitFlow }),
    capabilities: capabilities.value.capabilities,
    dlq: new JsonlDlqSink({
      path: join(dataDir, 'dlq.jsonl'),
      retain: agent.value.dlq.retain,
      logger: logger.child({ agentId: id }),
      onDropped: (reason, records) => options.metrics?.dlqDropped?.(reason, records),
    }),
    ...(options.approvals ? { approvals: options.approvals } : {}),
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
    logger,
    ...((options.warnSummaryIntervalMs ?? agent.value.log?.summaryIntervalMs) ? { warnSummaryIntervalMs: options.warnSummaryIntervalMs ?? agent.value.log?.summaryIntervalMs } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
    ...(options.flows ? { flows: options.flows } : {}),
  });
  const modelAgents = new ModelAgents({
    config,
    node,
    secrets,
    masker,
    audit,
    metrics: options.metrics ?? noMetrics,
    logger,
    env,
    ...(options.remoteNodes ? { remoteNodes: options.remoteNodes } : {}),
  });
  // Built without the daemon's resolver (library use), worker steps still reach agent.yaml's remoteNodes.
  const workerNodes = options.remoteNodes ?? (agent.value.remoteNodes ? mergedResolver(await remoteNodesFromConfig(agent, (ref) => secrets.resolve(ref, config.dir)), undefined) : undefined);
  const workflows = { config, agents: modelAgents, masker, ...(workerNodes ? { remoteNodes: workerNodes } : {}) };
  for (const type of config.plugins.handlerTypes) {
    for (const [capability, handler] of await type.handlers({ agent, dir: config.dir, modelAgents, workflows })) node.handle(capability, handler);
  }
  return {
    node,
    config,
    audit,
    serveWorkflow(capability, workflow, onRecord) {
      node.handle(capability, workflowCapability(workflows, capability, workflow, onRecord));
    },
    async close() {
      await node.close();
      for (const close of closers.reverse()) await close();
    },
  };
}
