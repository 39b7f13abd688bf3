import { agentHandler, type AgentHandlerOptions, type AgentHandlerSpec, type ToolsetFactory } from '../model-agents/agent-handler.js';
import {
  buildAgentTools,
  bashTool,
  scrubbedEnv,
  createModelClient,
  resolveModelId,
  ToolSelection,
  PeerCatalog,
  peerTool,
  readSchemaTool,
  readTool,
  thinkTool,
  webSearchTool,
  type AgentBlockConfig,
  type BashPolicy,
  type ModelClient,
  type ModelConfig,
  type Tool,
} from '../model-agents/index.js';
import type { SecretMasker, SecretResolver } from '../secrets/index.js';
import { patchTool } from '../model-agents/tools/patch-tool.js';
import type { AuditLog } from '../audit/index.js';
import { dataDirOf, type AgentConfig } from '../config/index.js';
import { ConfigError } from '../yaml/index.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics } from '../observability/index.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { AgentNode } from '../rpc/agent-node.js';
import type { Handler } from '../rpc/index.js';

export interface ModelAgentsContext {
  readonly config: AgentConfig;
  readonly node: AgentNode;
  readonly secrets: SecretResolver;
  readonly masker: SecretMasker;
  readonly audit: AuditLog;
  readonly metrics: RpcMetrics;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly remoteNodes?: RemoteNodeResolver;
}

// Allowing everything and asking about nothing: a handler without bashPolicy trusts the policy's defaults.
const OPEN_POLICY: BashPolicy = { defaultBehavior: 'allow', denyBehavior: 'hitl', rules: [] };

/** The handlers of agent.yaml's `type: agent` entries, each with its model client and tool set. */
export async function modelAgentHandlers(agents: ModelAgents): Promise<Map<string, Handler>> {
  const { config } = agents.context;
  const handlers = new Map<string, Handler>();
  for (const [capabilityName, entry] of Object.entries(config.agent.value.handlers)) {
    if (typeof entry === 'string' || entry.type !== 'agent') continue;
    const capability = config.capabilities.value.capabilities.find((c) => c.name === capabilityName)!;
    // Checked when the files loaded (loadAgentConfig); resolved again here for the entry itself.
    const where = { file: config.agent.file, line: config.agent.lineOf(['handlers', capabilityName]), field: `handlers.${capabilityName}.agent.model` };
    handlers.set(capabilityName, agentHandler(await agents.optionsFor(capability, entry.agent, entry.messages, where)));
  }
  return handlers;
}

/**
 * What every model agent of one agent shares — model clients (one per model), the peer
 * catalog, the tool set construction — so a `type: agent` handler and a workflow's agent
 * step are built the same way.
 */
export class ModelAgents {
  readonly #context: ModelAgentsContext;
  readonly #clients = new Map<string, Promise<ModelClient>>();
  readonly #catalog: PeerCatalog;

  get context(): ModelAgentsContext {
    return this.#context;
  }

  constructor(context: ModelAgentsContext) {
    this.#context = context;
    this.#catalog = new PeerCatalog(context.node, context.logger.child({ agentId: context.config.agent.value.agent.id }));
  }

  /** agentHandler's options for an agent block; a model that does not resolve is a ConfigError at `where`. */
  async optionsFor(capability: AgentHandlerOptions['capability'], block: AgentBlockConfig, messages: AgentHandlerSpec['messages'], where: { file: string; line: number | undefined; field: string }): Promise<AgentHandlerOptions> {
    const context = this.#context;
    const resolved = resolveModelId(block.model, context.config.agent.value.models ?? []);
    if (!resolved.ok) throw new ConfigError(where.file, where.line, where.field, resolved.problem);
    const model = resolved.model;
    if (!this.#clients.has(model.id)) this.#clients.set(model.id, modelClientOf(context, model));
    return {
      agentUri: context.node.uri,
      capability,
      spec: { ...(block.prompt ? { prompt: block.prompt } : {}), maxIterations: block.maxIterations, memory: block.memory?.enabled ?? false, messages },
      model: await this.#clients.get(model.id)!,
      pricing: model.pricing,
      dataDir: dataDirOf(context.config),
      tools: toolsetOf(context, block, this.#catalog),
      masker: context.masker,
      audit: context.audit,
      metrics: context.metrics,
    };
  }
}

async function modelClientOf(context: ModelAgentsContext, model: ModelConfig): Promise<ModelClient> {
  const { config } = context;
  const index = config.agent.value.models!.indexOf(model);
  let apiKey: string | undefined;
  if (model.apiKeyRef !== undefined) {
    try {
      apiKey = (await context.secrets.resolve(model.apiKeyRef, config.dir)).reveal();
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new ConfigError(config.agent.file, config.agent.lineOf(['models', index, 'apiKeyRef']), `models[${index}].apiKeyRef`, problem);
    }
    context.masker.add(apiKey);
  }
  return createModelClient(model, { apiKey });
}

function toolsetOf(context: ModelAgentsContext, block: AgentBlockConfig, catalog: PeerCatalog): ToolsetFactory {
  const agent = context.config.agent.value;
  const selection = new ToolSelection(block.tools?.enabled, agent.tools?.policy ?? {});
  const bashSettings = agent.tools?.bash;
  const webSearch = agent.tools?.webSearch;
  const logger = context.logger.child({ agentId: agent.agent.id });
  return async ({ ctx, memory }) => {
    const tools: Tool[] = [];
    const extraRoots = memory?.dirs ?? [];
    if (selection.has('bash')) {
      tools.push(
        bashTool({
          policy: block.tools?.bashPolicy ?? OPEN_POLICY,
          safeMode: block.safeMode,
          env: scrubbedEnv(context.env, { allow: bashSettings?.env ?? [], secretValues: context.masker.values }),
          timeoutMs: bashSettings?.timeoutMs ?? 120_000,
          onDecision: (decision, line) => {
            for (const part of decision.decisions) context.metrics.policyDecision?.(part.action, part.rule ?? 'default');
            logger.info({ correlationId: ctx.correlationId, command: context.masker.mask(line), action: decision.action, reason: decision.reason, decisions: decision.decisions }, `bash policy: ${decision.action} (${decision.reason})`);
          },
        }),
      );
    }
    if (selection.has('read')) tools.push(readTool({ extraRoots }));
    if (selection.has('patch')) tools.push(patchTool({ extraRoots }));
    if (selection.has('think')) tools.push(thinkTool());
    if (selection.has('read_schema')) {
      tools.push(readSchemaTool(() => ({ agentId: agent.agent.id, capabilities: context.config.capabilities.value.capabilities, config: { models: (agent.models ?? []).map((m) => m.id), tools: tools.map((t) => t.name) } })));
    }
    if (webSearch && selection.has('web_search')) tools.push(webSearchTool({ endpoint: webSearch.endpoint }));
    for (const { uri, capability } of await catalog.callable((peer, name) => selection.hasPeer(peer, name))) {
      tools.push(peerTool(uri, capability, (to, name, payload) => ctx.requestAgent({ to, capability: name, payload })));
    }
    if (context.remoteNodes) tools.push(...(await buildAgentTools({ policy: selection.remotePolicy(), resolver: context.remoteNodes, delegated: false })));
    return tools;
  };
}
