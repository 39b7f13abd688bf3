import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditLog } from '../audit/index.js';
import { flowOfRequest } from '../remote-nodes/index.js';
import type { RpcMetrics } from '../observability/index.js';
import { checkFlowBudget, executionOf, reportUsage, tracingOf, usageOf, type Handler, type HandlerContext } from '../rpc/index.js';
import { runAgentLoop, type AgentLoopResult } from './agent-loop.js';
import { contextMessages, recordAdded } from './execution-messages.js';
import { loadAgentMemory, type AgentMemory } from './memory.js';
import { fillTemplate } from './message-template.js';
import type { ModelClient, ModelMessage } from './models/model-client.js';
import type { Pricing } from './models/models-config.js';
import { outputCheck } from './output-check.js';
import type { SecretMasker } from '../secrets/index.js';
import { systemPrompt } from './system-prompt.js';
import { storeTools } from './tools/store-tools.js';
import type { Tool } from './tool.js';

/** A model agent's handler as agent.yaml describes it (`type: agent`), validated. */
export interface AgentHandlerSpec {
  readonly prompt?: string;
  readonly maxIterations: number;
  readonly memory: boolean;
  readonly messages: ReadonlyArray<{ readonly role: 'user' | 'assistant'; readonly content: string }>;
}

/** Where a running model agent's tools come from: built per call, for that call's flow. */
export type ToolsetFactory = (call: { readonly ctx: HandlerContext; readonly workDir: string; readonly memory: AgentMemory | undefined }) => Promise<readonly Tool[]>;

export interface AgentHandlerOptions {
  readonly agentUri: string;
  readonly capability: { readonly name: string; readonly description?: string; readonly outputSchema?: Record<string, unknown> };
  readonly spec: AgentHandlerSpec;
  readonly model: ModelClient;
  readonly pricing: Pricing | undefined;
  /** The agent's data directory: its working directory and memory live under it. */
  readonly dataDir: string;
  readonly tools: ToolsetFactory;
  readonly masker: SecretMasker;
  readonly audit: AuditLog;
  readonly metrics: RpcMetrics;
}

/**
 * A capability whose handler is a model in a tool loop. The result is the final answer as
 * `{text, usage}` — usage being everything the call caused, nested calls included — or,
 * when the capability declares an outputSchema, the JSON answer itself (its usage then
 * travels in the response only, like every response's).
 */
export function agentHandler(options: AgentHandlerOptions): Handler {
  const { capability, spec, masker } = options;
  const run = modelAgentRunner(options);
  return async (input, ctx) => {
    const messages: ModelMessage[] = spec.messages.map((message) => ({ role: message.role, content: masker.mask(fillTemplate(message.content, input)) }));
    const result = await run(messages, ctx);
    const usage = usageOf(ctx);
    ctx.logger.info({ capability: capability.name, correlationId: ctx.correlationId, iterations: result.iterations, ...usage }, `${capability.name} answered: ${usage.inputTokens} input + ${usage.outputTokens} output tokens, $${usage.costUsd.toFixed(6)}`);
    return capability.outputSchema ? result.data : { text: result.text, usage };
  };
}

/**
 * The model agent of `options` as a function of its starting messages, run in the flow of
 * `ctx` (its tools, approvals, usage, budget and cancellation): what agentHandler runs
 * for a request, and a workflow's agent step runs with the step's messages. `spec.messages`
 * is not used: the caller gives the messages, already filled and masked.
 */
export function modelAgentRunner(options: AgentHandlerOptions): (messages: readonly ModelMessage[], ctx: HandlerContext) => Promise<AgentLoopResult> {
  const { agentUri, capability, spec, masker } = options;
  const agentId = agentUri.slice('agent://'.length);
  const workDir = join(options.dataDir, 'workspace');
  const output = capability.outputSchema ? outputCheck(capability.outputSchema) : undefined;
  return async (own, ctx) => {
    const execution = executionOf(ctx);
    const tracing = tracingOf(ctx);
    const messages = execution ? [...contextMessages(execution), ...own] : own;
    await mkdir(workDir, { recursive: true });
    const memory = spec.memory ? await loadAgentMemory({ dataDir: options.dataDir, agentId }) : undefined;
    const store = executionOf(ctx)?.store;
    const tools = [...(await options.tools({ ctx, workDir, memory })), ...(store ? storeTools(store) : [])];
    const logger = ctx.logger.child({ capability: capability.name, correlationId: ctx.correlationId });
    const system = masker.mask(
      systemPrompt({ agentUri, capability, workDir, tools: tools.map((tool) => tool.name), ...(spec.prompt ? { prompt: spec.prompt } : {}), ...(memory ? { memory } : {}), ...(output ? { outputSchema: output.schema } : {}) }),
    );
    // A remote execution continues the executor's conversation: its messages come first, and
    // what this call adds (its own messages included) is the delta that goes back.
    if (execution) for (const message of own) recordAdded(execution, message);
    return runAgentLoop({
      model: options.model,
      pricing: options.pricing,
      system,
      messages,
      tools,
      toolContext: {
        // The caller is who the agent acts for; its right to call was settled by auth and permissions.
        principal: { user: ctx.from, role: 'operator' },
        agentId,
        capability: capability.name,
        audit: options.audit,
        logger,
        signal: ctx.signal,
        correlationId: ctx.correlationId,
        flow: flowOfRequest(ctx.envelope, agentId),
        workDir,
        requestApproval: (prompt) => ctx.requestApproval(prompt),
      },
      maxIterations: spec.maxIterations,
      ...(output ? { output } : {}),
      signal: ctx.signal,
      masker,
      reportUsage: (usage) => reportUsage(ctx, usage),
      checkBudget: () => checkFlowBudget(ctx),
      logger,
      metrics: options.metrics,
      ...(tracing ? { trace: { tracing, request: ctx.envelope } } : {}),
      ...(execution ? { onMessage: (message: ModelMessage) => recordAdded(execution, message) } : {}),
    });
  };
}
