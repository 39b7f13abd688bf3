import type { CallStatus } from '../call-result.js';

/**
 * One call of a flow as the flow pages show it and the flows topic carries it: who called
 * whom, when, how it ended and what it cost. Compact by design: no payloads, no error
 * messages (codes only), no headers — a record is safe to publish to every daemon of a fleet.
 *
 * The caller side fills `call`, the receiver side `handler`; two daemons' records of the
 * same call (same `id`) merge into one.
 */
export interface FlowCall {
  /** The request's messageId; `refused:<n>` for a call refused before anything was sent. */
  readonly id: string;
  readonly correlationId: string;
  /** The messageId of the request whose handler made this call; unset for a flow's first call. */
  readonly causedBy?: string;
  /** Agent ids (without `agent://`). */
  readonly from: string;
  readonly to: string;
  readonly capability: string;
  /** `event` for fire-and-forget; otherwise a request. */
  readonly kind?: 'event';
  /** Epoch ms: when the caller sent it (or, seen from the receiver only, when its handler began). */
  readonly startedAt: number;
  readonly call?: CallerSide;
  readonly handler?: HandlerSide;
}

export const CALLER_STATUSES = ['pending', 'ok', 'error', 'timeout', 'abandoned', 'busy', 'schema-violation'] as const satisfies readonly (CallStatus | 'pending')[];
export type CallerStatus = (typeof CALLER_STATUSES)[number];
export const HANDLER_STATUSES = ['running', 'ok', 'error', 'refused'] as const;
export type HandlerStatus = (typeof HANDLER_STATUSES)[number];

/** Tokens and cost of the call and everything it caused, when the answer said. */
export interface FlowUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export interface CallerSide {
  readonly status: CallerStatus;
  readonly latencyMs?: number;
  readonly errorCode?: string;
  readonly usage?: FlowUsage;
}

export interface HandlerSide {
  readonly status: HandlerStatus;
  /** Epoch ms. */
  readonly startedAt?: number;
  readonly durationMs?: number;
  readonly errorCode?: string;
  /** The DLQ kind when the request was dead-lettered. */
  readonly dlq?: string;
  /** Tokens and cost of what the handler caused (its model, its calls). */
  readonly usage?: FlowUsage;
}

/** What the pages colour a call by. */
export const DISPLAY_STATUSES = ['ok', 'error', 'timeout', 'refused', 'pending', 'running', 'abandoned', 'busy', 'schema-violation', 'dead-lettered'] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

/** Codes meaning a call was refused by policy (permission list, runaway guard) rather than failed. */
const REFUSAL_CODES = new Set(['EAGENTRPC_PERMISSION_DENIED', 'EAGENTRPC_GUARD_REJECTED']);

export function displayStatus(call: FlowCall): DisplayStatus {
  const caller = call.call;
  if (caller && caller.status !== 'pending') {
    if (caller.status === 'error' && caller.errorCode !== undefined && REFUSAL_CODES.has(caller.errorCode)) return 'refused';
    return caller.status;
  }
  const handler = call.handler;
  if (handler?.dlq !== undefined && handler.status !== 'ok') return 'dead-lettered';
  if (handler) return handler.status;
  return caller ? 'pending' : 'running';
}

/** Still under way: the page keeps listening while any call is. */
export function isOpen(status: DisplayStatus): boolean {
  return status === 'pending' || status === 'running';
}

/** When the call ended as far as known (epoch ms), for durations and the waterfall. */
export function endOf(call: FlowCall): number | undefined {
  if (call.call?.latencyMs !== undefined) return call.startedAt + call.call.latencyMs;
  const handler = call.handler;
  if (handler?.durationMs !== undefined) return (handler.startedAt ?? call.startedAt) + handler.durationMs;
  return undefined;
}

/**
 * Two views of one call (caller and receiver, or an earlier and a later record of one
 * side): a settled side wins over one still under way, otherwise the newer one.
 */
export function mergeCall(known: FlowCall, update: FlowCall): FlowCall {
  // Built field by field: spreads and rest patterns of optional fields cost more than the rest of the recorder.
  const merged: { -readonly [K in keyof FlowCall]: FlowCall[K] } = {
    id: known.id,
    correlationId: known.correlationId,
    from: known.from,
    to: known.to,
    capability: known.capability,
    startedAt: known.startedAt < update.startedAt ? known.startedAt : update.startedAt,
  };
  const causedBy = known.causedBy ?? update.causedBy;
  if (causedBy !== undefined) merged.causedBy = causedBy;
  if (known.kind === 'event' || update.kind === 'event') merged.kind = 'event';
  const call = pickSide(known.call, update.call, known.call?.status === 'pending', update.call?.status === 'pending');
  if (call) merged.call = call;
  const handler = pickSide(known.handler, update.handler, known.handler?.status === 'running', update.handler?.status === 'running');
  if (handler) merged.handler = handler;
  return merged;
}

function pickSide<T extends object>(known: T | undefined, update: T | undefined, knownOpen: boolean, updateOpen: boolean): T | undefined {
  if (update === undefined) return known;
  if (known === undefined) return update;
  if (!knownOpen && updateOpen) return known;
  return Object.assign({}, known, update);
}

/** The usage to show for a call: the caller's figure (rolled up), else the handler's. */
export function usageOf(call: FlowCall): FlowUsage | undefined {
  return call.call?.usage ?? call.handler?.usage;
}
