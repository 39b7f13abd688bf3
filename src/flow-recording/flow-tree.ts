import { usageOf } from './flow-record.js';
import type { FlowCallView, FlowView } from './flow-view.js';

/**
 * A flow as terminal lines: a header, then each call under the call whose handler made it
 * (`from → to capability status latency [tokens cost] [error code]`), in start order.
 */
export function flowTreeLines(view: FlowView): string[] {
  const { summary } = view;
  const ids = new Set(view.calls.map((call) => call.id));
  const children = new Map<string | undefined, FlowCallView[]>();
  for (const call of view.calls) {
    const parent = call.causedBy !== undefined && ids.has(call.causedBy) ? call.causedBy : undefined;
    const list = children.get(parent) ?? [];
    list.push(call);
    children.set(parent, list);
  }
  let header = `flow ${summary.correlationId} ${summary.status} · ${summary.calls} calls (${summary.failed} not ok) · ${summary.agents.length} agents · ${ms(summary.durationMs)}`;
  if (summary.inputTokens + summary.outputTokens > 0 || summary.costUsd > 0) header += ` · ${summary.inputTokens + summary.outputTokens} tokens · $${summary.costUsd.toFixed(6)}`;
  const lines = [header];
  const walk = (parent: string | undefined, indent: string): void => {
    const list = children.get(parent) ?? [];
    list.forEach((call, index) => {
      const last = index === list.length - 1;
      lines.push(`${indent}${last ? '└─ ' : '├─ '}${callText(call)}`);
      walk(call.id, `${indent}${last ? '   ' : '│  '}`);
    });
  };
  walk(undefined, '');
  if (view.droppedCalls > 0) lines.push(`(${view.droppedCalls} further calls not kept)`);
  return lines;
}

function callText(call: FlowCallView): string {
  const parts = [`${call.from} → ${call.to}`, call.capability, call.status, call.durationMs === undefined ? 'running' : ms(call.durationMs)];
  const usage = usageOf(call);
  if (usage && (usage.inputTokens + usage.outputTokens > 0 || usage.costUsd > 0)) parts.push(`${usage.inputTokens + usage.outputTokens} tokens`, `$${usage.costUsd.toFixed(6)}`);
  const code = call.call?.errorCode ?? call.handler?.errorCode;
  if (code !== undefined) parts.push(code);
  if (call.handler?.dlq !== undefined) parts.push(`DLQ ${call.handler.dlq}`);
  return parts.join(' ');
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}
