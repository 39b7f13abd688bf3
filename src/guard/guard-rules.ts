import { collapseChain } from './collapse-chain.js';
import type { FlowState } from './flow-state.js';

export interface GuardLimits {
  /** Collapsed call depth. Default 5. */
  readonly maxDepth: number;
  /** Distinct agents in a flow. Default 10. */
  readonly maxAgents: number;
  /** Default 5 minutes. */
  readonly maxFlowMs: number;
  /** Agent-to-agent calls per rolling minute in a flow. Default 20. */
  readonly maxCallsPerMinute: number;
  /** Agent-to-agent calls in a flow. Default 100. */
  readonly maxCallsPerFlow: number;
  /** Model tokens (input + output) a flow may spend. Default: no budget. */
  readonly maxTokens?: number;
  /** Model cost in USD a flow may spend. Default: no budget. */
  readonly maxCostUsd?: number;
}

export const DEFAULT_GUARD_LIMITS: GuardLimits = { maxDepth: 5, maxAgents: 10, maxFlowMs: 5 * 60_000, maxCallsPerMinute: 20, maxCallsPerFlow: 100 };

export const GUARD_RULES = ['correlation-required', 'self-call', 'depth', 'agents', 'duration', 'rate', 'total', 'tokens', 'cost'] as const;
export type GuardRule = (typeof GUARD_RULES)[number];

export interface GuardViolation {
  readonly rule: GuardRule;
  /** "Agent call rejected: …" — the text callers and logs show. */
  readonly message: string;
  /** The figure that broke the limit, and the limit. */
  readonly value?: number;
  readonly limit?: number;
}

const PREFIX = 'Agent call rejected: ';

function minutes(ms: number): string {
  const m = ms / 60_000;
  return `${Number.isInteger(m) ? m : m.toFixed(1)} minute${m === 1 ? '' : 's'}`;
}

/**
 * Checks one agent-to-agent call `from → to`, given the flow state as it would be after
 * the call (`next`: chain already extended by `to`, the call counted and timed `now`).
 * Returns the first rule broken, in the order the rules are listed.
 */
export function checkCall(from: string, to: string, next: FlowState, now: number, limits: GuardLimits): GuardViolation | undefined {
  if (from === to) return { rule: 'self-call', message: `${PREFIX}self-calls not allowed` };
  const depth = collapseChain(next.chain).length;
  if (depth > limits.maxDepth) {
    return { rule: 'depth', message: `${PREFIX}effective call depth ${depth} exceeds limit (max ${limits.maxDepth})`, value: depth, limit: limits.maxDepth };
  }
  const agents = new Set(next.chain).size;
  const lastMinute = next.recent.filter((at) => at > now - 60_000).length;
  const counts = { agents, lastMinute, calls: next.calls };
  if (agents > limits.maxAgents) return checkFlowCounts(counts, limits);
  const age = now - next.startedAt;
  if (age > limits.maxFlowMs) return { rule: 'duration', message: `${PREFIX}flow timeout (max ${minutes(limits.maxFlowMs)})`, value: age, limit: limits.maxFlowMs };
  return checkFlowCounts(counts, limits);
}

/** A flow's counts across all its branches: distinct agents, calls in the last minute, calls in all. */
export interface FlowCounts {
  readonly agents: number;
  readonly lastMinute: number;
  readonly calls: number;
}

/** The rules that need the whole flow's counts (agents, rate, total), in that order. */
export function checkFlowCounts(counts: FlowCounts, limits: GuardLimits): GuardViolation | undefined {
  if (counts.agents > limits.maxAgents) {
    return { rule: 'agents', message: `${PREFIX}flow involves too many sessions (${counts.agents}, max ${limits.maxAgents})`, value: counts.agents, limit: limits.maxAgents };
  }
  if (counts.lastMinute > limits.maxCallsPerMinute) {
    return { rule: 'rate', message: `${PREFIX}call rate limit exceeded (max ${limits.maxCallsPerMinute}/minute)`, value: counts.lastMinute, limit: limits.maxCallsPerMinute };
  }
  if (counts.calls > limits.maxCallsPerFlow) {
    return { rule: 'total', message: `${PREFIX}total call limit exceeded (max ${limits.maxCallsPerFlow} per flow)`, value: counts.calls, limit: limits.maxCallsPerFlow };
  }
  return undefined;
}

/** What a flow has spent, as the budget rules read it. */
export interface FlowSpending {
  readonly tokens: number;
  readonly costUsd: number;
}

/** The budget rules (tokens, cost): refused once the flow has spent its budget. */
export function checkBudget(spent: FlowSpending, limits: GuardLimits): GuardViolation | undefined {
  if (limits.maxTokens !== undefined && spent.tokens >= limits.maxTokens) {
    return { rule: 'tokens', message: `${PREFIX}flow token budget spent (${spent.tokens}, max ${limits.maxTokens})`, value: spent.tokens, limit: limits.maxTokens };
  }
  if (limits.maxCostUsd !== undefined && spent.costUsd >= limits.maxCostUsd) {
    const cost = Number(spent.costUsd.toFixed(6));
    return { rule: 'cost', message: `${PREFIX}flow cost budget spent ($${cost}, max $${limits.maxCostUsd})`, value: cost, limit: limits.maxCostUsd };
  }
  return undefined;
}

/** The log line for a refusal: `[RECURSION] Rejected call a→b: chain depth 6 exceeds max 5`. */
export function recursionLogLine(from: string, to: string, violation: GuardViolation): string {
  const why =
    violation.rule === 'depth'
      ? `chain depth ${violation.value} exceeds max ${violation.limit}`
      : violation.message.slice(PREFIX.length);
  return `[RECURSION] Rejected call ${from}→${to}: ${why}`;
}
