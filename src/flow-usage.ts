import type { AgentRpcEnvelope } from './envelope/index.js';

/** Tokens and cost: of one model request, of a call and everything it caused, of a flow. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The part of `inputTokens` served from a provider's prompt cache. */
  readonly cachedInputTokens: number;
  readonly costUsd: number;
  /** Model requests made. */
  readonly modelRequests: number;
}

export const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, modelRequests: 0 };

/** On a response: the usage of everything the request caused, nested calls included. */
export const USAGE_HEADER = 'agent-rpc-usage';
/** On a request made inside a flow: what the flow had spent before it, as far as the calling branch knows. */
export const FLOW_USAGE_HEADER = 'agent-rpc-flow-usage';

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    costUsd: a.costUsd + b.costUsd,
    modelRequests: a.modelRequests + b.modelRequests,
  };
}

export function isNoUsage(usage: Usage): boolean {
  return usage.inputTokens === 0 && usage.outputTokens === 0 && usage.modelRequests === 0 && usage.costUsd === 0;
}

/** Wire form `1;<input>;<output>;<cached>;<costUsd>;<modelRequests>`: no JSON escaping inside the envelope's headers. */
export function encodeUsage(usage: Usage): string {
  return `1;${usage.inputTokens};${usage.outputTokens};${usage.cachedInputTokens};${Number(usage.costUsd.toPrecision(12))};${usage.modelRequests}`;
}

const COUNT_RE = /^\d{1,15}$/;
const COST_RE = /^\d{1,12}(\.\d{1,15})?(e-\d{1,3})?$/;

/** Undefined for a missing or malformed header (usage is then unknown, never guessed). */
export function decodeUsage(header: string | undefined): Usage | undefined {
  if (header === undefined || header.length > 128) return undefined;
  const parts = header.split(';');
  if (parts.length !== 6 || parts[0] !== '1') return undefined;
  const [, input, output, cached, cost, requests] = parts as [string, string, string, string, string, string];
  if (![input, output, cached, requests].every((count) => COUNT_RE.test(count)) || !COST_RE.test(cost)) return undefined;
  return { inputTokens: Number(input), outputTokens: Number(output), cachedInputTokens: Number(cached), costUsd: Number(cost), modelRequests: Number(requests) };
}

// Per request being handled: what it has caused so far (its model's tokens, its calls'
// rolled-up usage). Keyed by the envelope object so an entry goes with the request, and
// created only when something reports usage, so plain handlers pay nothing.
const caused = new WeakMap<AgentRpcEnvelope, Usage>();

/** Adds usage to what `request` caused. */
export function recordUsage(request: AgentRpcEnvelope, usage: Usage): void {
  if (isNoUsage(usage)) return;
  const before = caused.get(request);
  caused.set(request, before === undefined ? usage : addUsage(before, usage));
}

/** Everything `request` caused so far; undefined when nothing reported usage. */
export function usageCausedBy(request: AgentRpcEnvelope): Usage | undefined {
  return caused.get(request);
}

/** What the flow had spent when `request` arrived plus what the request caused since: the figure a budget is checked against. */
export function flowSpentAt(request: AgentRpcEnvelope): Usage | undefined {
  const before = decodeUsage(request.headers?.[FLOW_USAGE_HEADER]);
  const since = caused.get(request);
  if (before === undefined) return since;
  return since === undefined ? before : addUsage(before, since);
}
