import { displayStatus, endOf, isOpen, usageOf, type DisplayStatus, type FlowCall } from './flow-record.js';
import type { StoredFlow } from './flow-record-store.js';

/** One line of `/flows`: what a flow did at a glance. */
export interface FlowSummary {
  readonly correlationId: string;
  /** Epoch ms of its first call. */
  readonly startedAt: number;
  readonly durationMs: number;
  /** Agents in the order they joined the flow. */
  readonly agents: readonly string[];
  readonly calls: number;
  /** Calls that did not end ok (errors, timeouts, refusals, dead letters). */
  readonly failed: number;
  readonly status: 'running' | 'ok' | 'failed';
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

/** One call as the flow page draws it. */
export interface FlowCallView extends FlowCall {
  readonly status: DisplayStatus;
  /** From the flow's start, for the waterfall. */
  readonly offsetMs: number;
  /** Unset while it runs. */
  readonly durationMs?: number;
}

/** `/flows/<correlationId>.json`: the flow and each call. */
export interface FlowView {
  readonly summary: FlowSummary;
  readonly calls: readonly FlowCallView[];
  /** Calls past the store's per-flow limit, counted only. */
  readonly droppedCalls: number;
}

export function summarize(flow: StoredFlow): FlowSummary {
  const calls = [...flow.calls.values()];
  const ids = new Set(calls.map((call) => call.id));
  const agents: string[] = [];
  const seen = new Set<string>();
  let startedAt = Number.POSITIVE_INFINITY;
  let endedAt = Number.NEGATIVE_INFINITY;
  let failed = 0;
  let open = false;
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    for (const agent of [call.from, call.to]) {
      if (seen.has(agent)) continue;
      seen.add(agent);
      agents.push(agent);
    }
    startedAt = Math.min(startedAt, call.startedAt);
    endedAt = Math.max(endedAt, endOf(call) ?? call.startedAt);
    const status = displayStatus(call);
    if (isOpen(status)) open = true;
    else if (status !== 'ok') failed++;
    // Usage is rolled up along the flow: only the calls nobody in the flow made count, so nothing is counted twice.
    const usage = usageOf(call);
    if (usage && (call.causedBy === undefined || !ids.has(call.causedBy))) {
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
      costUsd += usage.costUsd;
    }
  }
  if (calls.length === 0) startedAt = endedAt = flow.updatedAt;
  return {
    correlationId: flow.correlationId,
    startedAt,
    durationMs: Math.max(0, endedAt - startedAt),
    agents,
    calls: calls.length,
    failed,
    status: open ? 'running' : failed > 0 ? 'failed' : 'ok',
    inputTokens,
    outputTokens,
    costUsd,
  };
}

export function flowView(flow: StoredFlow): FlowView {
  const summary = summarize(flow);
  const calls = [...flow.calls.values()]
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((call): FlowCallView => {
      const end = endOf(call);
      return { ...call, status: displayStatus(call), offsetMs: call.startedAt - summary.startedAt, ...(end === undefined ? {} : { durationMs: end - call.startedAt }) };
    });
  return { summary, calls, droppedCalls: flow.droppedCalls };
}
