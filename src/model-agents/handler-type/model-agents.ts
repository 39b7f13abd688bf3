import {
  dataDirOf,
  handlerEntriesOf,
  sectionOf,
  type HandlerSection,
  type HandlerServices,
  type HandlerTypeBase,
} from '../../config/index.js';
import type { Handler } from '../../rpc/index.js';
import { ConfigError } from '../../yaml/index.js';
import { agentHandler, modelAgentRunner, type AgentHandlerOptions, type AgentHandlerSpec, type ToolsetFactory } from '../agent-handler.js';
import {
  agentHandlerSchema,
  modelsSectionSchema,
  toolsSectionSchema,
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
  type ModelMessage,
  type ModelConfig,
  type Tool,
} from '../index.js';
import { patchTool } from '../tools/patch-tool.js';

// Allowing everything and asking about nothing: a handler without bashPolicy trusts the policy's defaults.
const OPEN_POLICY: BashPolicy = { defaultBehavior: 'allow', denyBehavior: 'hitl', rules: [] };

/** The handlers of agent.yaml's `type: agent` entries in `section`, each with its model client and tool set. */
export async function modelAgentHandlers(agents: ModelAgents, section: HandlerSection): Promise<Map<string, Handler>> {
  const { config } = agents.context;
  const handlers = new Map<string, Handler>();
  for (const [capabilityName, entry] of handlerEntriesOf(config, 'agent', agentHandlerSchema, section)) {
    const capability = config.capabilities.value.capabilities.find((c) => c.name === capabilityName)!;
    // Checked when the files loaded (loadAgentConfig); resolved again here for the entry itself.
    const where = { file: config.agent.file, line: config.agent.lineOf([section, capabilityName]), field: `${section}.${capabilityName}.agent.model` };
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
  readonly #context: HandlerTypeBase;
  readonly #clients = new Map<string, Promise<ModelClient>>();
  readonly #catalog: PeerCatalog;

  get context(): HandlerTypeBase {
    return this.#context;
  }

  constructor(context: HandlerTypeBase) {
    this.#context = context;
    this.#catalog = new PeerCatalog(context.node, context.logger.child({ agentId: context.config.agent.value.agent.id }));
  }

  /** agentHandler's options for an agent block; a model that does not resolve is a ConfigError at `where`. */
  async optionsFor(capability: AgentHandlerOptions['capability'], block: AgentBlockConfig, messages: AgentHandlerSpec['messages'], where: { file: string; line: number | undefined; field: string }): Promise<AgentHandlerOptions> {
    const context = this.#context;
    const resolved = resolveModelId(block.model, modelsOf(context.config));
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

/**
 * The runner of a workflow's agent steps, built as `type: agent` handlers are: a model that
 * does not resolve names the step.
 */
export function agentStepsOf(agents: ModelAgents): NonNullable<HandlerServices['agentSteps']> {
  return (capability, loaded) => async (step, given, ctx) => {
    const workflow = loaded.value;
    const index = workflow.steps.findIndex((s) => s.name === step.name);
    // Model names were checked when the file loaded; this names the step again should one not resolve.
    const where = { file: loaded.file, line: loaded.lineOf(['steps', index, 'agent']), field: `steps[${index}].agent.model` };
    const options = await agents.optionsFor({ name: capability, description: `Step ${step.name} of workflow ${workflow.name}.` }, step.agent, step.messages, where);
    const own = step.messages.map((message): ModelMessage => ({ role: message.role, content: agents.context.masker.mask(message.content) }));
    const result = await modelAgentRunner(options)([...given, ...own], ctx);
    return { text: result.text, transcript: result.transcript };
  };
}

/** agent.yaml's `models:`, none when it has none. */
export function modelsOf(config: Pick<HandlerTypeBase['config'], 'agent'>): readonly ModelConfig[] {
  return sectionOf(config, 'models', modelsSectionSchema) ?? [];
}

async function modelClientOf(context: HandlerTypeBase, model: ModelConfig): Promise<ModelClient> {
  const { config } = context;
  const index = modelsOf(context.config).indexOf(model);
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

function toolsetOf(context: HandlerTypeBase, block: AgentBlockConfig, catalog: PeerCatalog): ToolsetFactory {
  const agent = context.config.agent.value;
  const settings = sectionOf(context.config, 'tools', toolsSectionSchema);
  const selection = new ToolSelection(block.tools?.enabled, settings?.policy ?? {});
  const bashSettings = settings?.bash;
  const webSearch = settings?.webSearch;
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
      tools.push(readSchemaTool(() => ({ agentId: agent.agent.id, capabilities: context.config.capabilities.value.capabilities, config: { models: modelsOf(context.config).map((m) => m.id), tools: tools.map((t) => t.name) } })));
    }
    if (webSearch && selection.has('web_search')) tools.push(webSearchTool({ endpoint: webSearch.endpoint }));
    for (const { uri, capability } of await catalog.callable((peer, name) => selection.hasPeer(peer, name))) {
      tools.push(peerTool(uri, capability, (to, name, payload) => ctx.requestAgent({ to, capability: name, payload })));
    }
    if (context.remoteNodes) tools.push(...(await buildAgentTools({ policy: selection.remotePolicy(), resolver: context.remoteNodes, delegated: false })));
    return tools;
  };
}
