import type { TracerProvider } from '@opentelemetry/api';
import { mkdir } from 'node:fs/promises';
import type { AuditLog } from '../audit/index.js';
import { dataDirOf, type AgentConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import { noMetrics, type RpcMetrics, type FlowObserver } from '../observability/index.js';
import { AgentNode } from '../rpc/agent-node.js';
import type { ApprovalGate } from '../rpc/index.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import { createSecretResolver, SecretMasker, maskingResolver } from '../secrets/index.js';
import type { LoadedWorkflow, WorkflowRunRecord } from '../workflows/index.js';
import { workflowCapability } from '../workflows/handler-type/index.js';
import { installHandlers } from './agent-handlers.js';
import { nodeOptionsOf } from './agent-node-options.js';
import { openAgentStores } from './agent-stores.js';
import type { DaemonPlugins } from './plugins.js';

export interface BuildAgentOptions {
  readonly logger: Logger;
  readonly metrics?: RpcMetrics;
  /** Per-process state the transports of several agents share, keyed by kind (the memory bus). Default: this agent's own. */
  readonly shared?: Map<string, unknown>;
  readonly env?: NodeJS.ProcessEnv;
  /** This agent's remote nodes, which gateways that call them (http) and model agents' tools are given. */
  readonly remoteNodes?: RemoteNodeResolver;
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

/**
 * Builds an agent node from its config files: its stores, its node, and the handlers every
 * handler type of `config.plugins` builds from agent.yaml's `handlers:`.
 */
export async function buildAgent(config: AgentConfig<DaemonPlugins>, options: BuildAgentOptions): Promise<BuiltAgent> {
  const dataDir = dataDirOf(config);
  await mkdir(dataDir, { recursive: true });
  const env = options.env ?? process.env;
  // Every secret this agent resolves is also kept out of what its model agents send and log.
  const masker = options.masker ?? new SecretMasker();
  masker.addEnvironment(env);
  const secrets = maskingResolver(createSecretResolver({ env }), masker);
  const metrics = options.metrics ?? noMetrics;
  // AgentNode binds agentId to its own lines; the stores' lines get it here.
  const stores = await openAgentStores(config, dataDir, options.logger, metrics);
  const node = new AgentNode(await nodeOptionsOf(config, options, { dataDir, secrets, stores }));
  const base = { config, node, secrets, masker, audit: stores.audit, metrics, logger: options.logger, env, ...(options.remoteNodes ? { remoteNodes: options.remoteNodes } : {}) };
  const context = await installHandlers(config.plugins.handlerTypes, base);
  return {
    node,
    config,
    audit: stores.audit,
    serveWorkflow(capability, workflow, onRecord) {
      node.handle(capability, workflowCapability(context, capability, workflow, onRecord));
    },
    async close() {
      await node.close();
      await stores.close();
    },
  };
}
