import type { TracerProvider } from '@opentelemetry/api';
import { mkdir } from 'node:fs/promises';
import type { AuditLog } from '../audit/index.js';
import { dataDirOf, type AgentConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import { noMetrics, type RpcMetrics, type FlowObserver } from '../observability/index.js';
import { AgentNode } from '../rpc/agent-node.js';
import { createSecretResolver, SecretMasker, maskingResolver } from '../secrets/index.js';
import type { DaemonPlugins } from './plugins.js';
import type { ApprovalGate } from '../rpc/index.js';
import type { TransportContext } from './transports-from-config.js';
import { ModelAgents } from './model-agents.js';
import { workflowCapability } from './workflow-handlers.js';
import type { LoadedWorkflow, WorkflowRunRecord } from '../workflows/index.js';
import { remoteNodesFromConfig } from '../remote-nodes/remote-nodes-config.js';
import { mergedResolver } from '../remote-nodes/index.js';
import { agentNodeOptions } from './agent-node-options.js';

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
  const { agent } = config;
  const dataDir = dataDirOf(config);
  await mkdir(dataDir, { recursive: true });
  const env = options.env ?? process.env;
  // Every secret this agent resolves is also kept out of what its model agents send and log.
  const masker = options.masker ?? new SecretMasker();
  masker.addEnvironment(env);
  const secrets = maskingResolver(createSecretResolver({ env }), masker);
  const { logger } = options;
  const closers: Array<() => Promise<void>> = [];
  const nodeOptions = await agentNodeOptions(config, { dataDir, secrets, closers, options });
  const { audit } = nodeOptions;
  const node = new AgentNode(nodeOptions);
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
