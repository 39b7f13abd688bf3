import { RpcError, toRpcError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics } from '../observability/index.js';
import type { RpcTracing } from '../observability/tracing/rpc-tracing.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { Usage } from '../flow-usage.js';
import { costUsd } from './models/pricing.js';
import type { ModelClient, ModelMessage, ModelReply, ModelTool, ModelToolCall } from './models/model-client.js';
import type { Pricing } from './models/models-config.js';
import type { OutputCheck } from './output-check.js';
import type { SecretMasker } from '../secrets/index.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { summarize, transcriptForError } from './transcript.js';

export interface AgentLoopOptions {
  readonly model: ModelClient;
  readonly pricing: Pricing | undefined;
  readonly system: string;
  /** The conversation so far: the handler's messages, with secrets already masked. */
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly Tool[];
  readonly toolContext: ToolContext;
  /** Model requests allowed before the loop gives up (EAGENTRPC_AGENT_MAX_ITERATIONS). */
  readonly maxIterations: number;
  /** When the capability declares an outputSchema: the model must answer JSON of that shape. */
  readonly output?: OutputCheck;
  readonly signal: AbortSignal;
  readonly masker: SecretMasker;
  /** Each model request's tokens and cost, as they happen (rolled up along the flow). */
  readonly reportUsage: (usage: Usage) => void;
  /** The flow's budget refusal, checked before every model request. */
  readonly checkBudget: () => RpcError | undefined;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
  /** Spans of the model requests and tool calls, under the span of the request being handled. */
  readonly trace?: { readonly tracing: RpcTracing; readonly request: AgentRpcEnvelope };
  /** Hears every message the loop adds to the conversation (a remote execution's delta). */
  readonly onMessage?: (message: ModelMessage) => void;
}

export interface AgentLoopResult {
  /** The final assistant message (the first without tool calls). */
  readonly text: string;
  /** The parsed and checked JSON answer, when an output schema was given. */
  readonly data?: unknown;
  readonly iterations: number;
  /** The whole conversation: the messages given, then every model answer and tool result. */
  readonly transcript: readonly ModelMessage[];
}

/**
 * The tool loop: ask the model; run the tools it calls, in order, feeding their (masked)
 * results back; repeat until it answers without calling a tool. Ends with a typed error at
 * maxIterations (the partial transcript in details), when the flow's budget is spent, or
 * when the signal aborts (deadline, cancel) — whatever tool is running is stopped by the
 * same signal. Failures are never retriable: tools may have acted, so running the loop
 * again is the caller's decision, not a redelivery's.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { model, logger, masker, signal } = options;
  const transcript: ModelMessage[] = [...options.messages];
  const add = (message: ModelMessage): void => {
    transcript.push(message);
    options.onMessage?.(message);
  };
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const modelTools: ModelTool[] = options.tools.map(({ name, description, parameters }) => ({ name, description, parameters: { ...parameters } }));
  const fail = (error: RpcError, iterations: number): RpcError =>
    new RpcError(error.code, error.message, { retriable: false, details: { ...error.details, iterations, transcript: transcriptForError(transcript) }, cause: error });

  for (let iteration = 1; iteration <= options.maxIterations; iteration++) {
    if (signal.aborted) throw fail(toRpcError(signal.reason), iteration - 1);
    const overBudget = options.checkBudget();
    if (overBudget) throw fail(overBudget, iteration - 1);
    logger.info({ model: model.id, iteration, maxIterations: options.maxIterations, messages: transcript.length, tools: modelTools.length }, `model request ${iteration}/${options.maxIterations}`);
    let reply: ModelReply;
    const trace = options.trace;
    const span = trace?.tracing.startModelRequest(trace.request, model.id, model.provider, model.model);
    try {
      reply = await model.complete({ system: options.system, messages: transcript, tools: modelTools, ...(options.output ? { outputSchema: options.output.schema } : {}), signal });
    } catch (error) {
      const failure = toRpcError(signal.aborted ? signal.reason : error);
      if (span) trace?.tracing.endModelRequest(span, undefined, 0, undefined, failure);
      throw fail(failure, iteration - 1);
    }
    const cost = report(options, reply);
    if (span) trace?.tracing.endModelRequest(span, reply.usage, cost, reply.stopReason);
    const text = masker.mask(reply.text);
    logger.info({ model: model.id, iteration, toolCalls: reply.toolCalls.map((call) => call.name), stopReason: reply.stopReason, answer: summarize(text) }, 'model answered');
    const calls = reply.toolCalls.map((call): ModelToolCall => ({ ...call, arguments: maskArguments(call.arguments, masker) }));
    add(calls.length > 0 ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
    if (calls.length === 0) {
      if (!options.output) return { text, iterations: iteration, transcript };
      const checked = options.output.check(text);
      if (checked.ok) return { text, data: checked.data, iterations: iteration, transcript };
      // One more turn to fix the shape: the model reads why its answer was refused.
      add({ role: 'user', content: `Your answer was not accepted: ${checked.problem}. Answer again with only the JSON value.` });
      continue;
    }
    for (const call of calls) {
      if (signal.aborted) throw fail(toRpcError(signal.reason), iteration);
      const result = await runTool(options, tools.get(call.name), call);
      add({ role: 'tool', toolCallId: call.id, name: call.name, content: result.output, ...(result.isError ? { isError: true } : {}) });
    }
  }
  throw fail(new RpcError('EAGENTRPC_AGENT_MAX_ITERATIONS', `no final answer after ${options.maxIterations} model requests (maxIterations)`, { details: { maxIterations: options.maxIterations } }), options.maxIterations);
}

/** Counts the request's tokens and cost, and returns the cost in USD. */
function report(options: AgentLoopOptions, reply: ModelReply): number {
  const { model, metrics } = options;
  const cost = costUsd(reply.usage, options.pricing);
  metrics.modelTokens?.(model.id, 'input', reply.usage.inputTokens);
  metrics.modelTokens?.(model.id, 'output', reply.usage.outputTokens);
  if (reply.usage.cachedInputTokens > 0) metrics.modelTokens?.(model.id, 'cached', reply.usage.cachedInputTokens);
  if (cost > 0) metrics.modelCost?.(model.id, cost);
  options.reportUsage({ ...reply.usage, costUsd: cost, modelRequests: 1 });
  return cost;
}

async function runTool(options: AgentLoopOptions, tool: Tool | undefined, call: ModelToolCall): Promise<ToolResult> {
  const { logger, masker, toolContext: context } = options;
  const argumentsText = JSON.stringify(call.arguments) ?? 'null';
  logger.info({ tool: call.name, toolCallId: call.id, arguments: summarize(argumentsText) }, `tool call ${call.name}`);
  let result: ToolResult;
  const trace = options.trace?.tracing.startToolCall(options.trace.request, call.name, call.id);
  if (!tool) {
    result = { isError: true, output: `Unknown tool ${call.name}. Available tools: ${[...options.tools.map((t) => t.name)].join(', ') || '(none)'}` };
  } else {
    try {
      result = await tool.execute(call.arguments, context);
    } catch (error) {
      result = { isError: true, output: `${call.name} failed: ${toRpcError(error).message}` };
    }
  }
  trace?.end(result.isError === true);
  const output = masker.mask(result.output);
  const outcome = result.isError ? 'error' : 'ok';
  options.metrics.toolCalled?.(call.name, outcome);
  logger.info({ tool: call.name, toolCallId: call.id, outcome, output: summarize(output) }, `tool result ${call.name}: ${outcome}`);
  context.audit.append({
    kind: 'tool_call',
    agentId: context.agentId,
    capability: context.capability,
    correlationId: context.correlationId,
    tool: call.name,
    outcome,
    details: { arguments: summarize(argumentsText, 1_000) },
  });
  return { output, ...(result.isError ? { isError: true } : {}) };
}

/** Tool arguments as the model wrote them, with any secret it somehow learnt cut out before they are logged, audited or sent back. */
function maskArguments(args: unknown, masker: SecretMasker): unknown {
  if (masker.values.length === 0) return args;
  const text = JSON.stringify(args);
  if (text === undefined) return args;
  const masked = masker.mask(text);
  return masked === text ? args : (JSON.parse(masked) as unknown);
}
