import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { collapseChain } from './collapse-chain.js';
import { decodeFlowState, encodeFlowState, FLOW_HEADER, RECENT_CALLS_KEPT, type FlowState } from './flow-state.js';
import { FlowTable } from './flow-table.js';
import { checkBudget, checkCall, checkFlowCounts, DEFAULT_GUARD_LIMITS, type GuardLimits, type GuardViolation } from './guard-rules.js';
import { decodeUsage, FLOW_USAGE_HEADER, type Usage } from '../flow-usage.js';
import type { GuardStore } from './guard-store.js';
import { positiveInteger } from '../check-integer.js';

/** A refused call: the rule it broke, between which agents. */
export interface GuardRefusal {
  readonly violation: GuardViolation;
  readonly from: string;
  readonly to: string;
}

export interface GuardDecision {
  /** The header value to send with the call. */
  readonly header: string;
  /** Collapsed depth of the call. */
  readonly depth: number;
  /**
   * Set when this is the `IDLE_HOPS_WARNING`th hop in a row whose handler called on
   * within `IDLE_HOP_MS` of receiving its request: agents passing the flow around without
   * doing anything else. A warning, not a refusal.
   */
  readonly idleHops?: number;
}

export const IDLE_HOP_MS = 10;
/** A shared store slower than this is treated as unavailable for that call. */
export const STORE_TIMEOUT_MS = 1_000;
export const IDLE_HOPS_WARNING = 5;

const idOf = (uri: string): string => uri.slice('agent://'.length);

/**
 * Runaway protection over flows. The sender checks before publishing (so a loop costs no
 * broker traffic), the receiver checks again before dispatch (so a sender without a guard
 * cannot get around it). State travels in the envelope (see flow-state.ts) and, for calls
 * made in this process, in a local table; see docs/guard.md for what that does and does not
 * count across processes.
 */
export class RunawayGuard {
  readonly limits: GuardLimits;
  private readonly table: FlowTable;
  /** When each request being handled here arrived (messageId → ms), for the idle-hop warning. */
  private arrivals = new Map<string, number>();
  /** The generation before `arrivals`: requests still being handled may have arrived then. */
  private olderArrivals = new Map<string, number>();

  /**
   * `store`: the whole flow's counts shared between processes (docs/guard.md). When it
   * fails, calls are admitted on what envelopes and this process know, and `onStoreError`
   * hears about it.
   */
  constructor(
    limits: Partial<GuardLimits> = {},
    readonly store?: GuardStore,
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {
    this.limits = { ...DEFAULT_GUARD_LIMITS, ...limits };
    const { maxTokens, maxCostUsd, ...counts } = this.limits;
    for (const [field, value] of Object.entries(counts)) positiveInteger(value, `guard.${field}`);
    // The budgets are optional: no budget unless set.
    if (maxTokens !== undefined) positiveInteger(maxTokens, 'guard.maxTokens');
    if (maxCostUsd !== undefined && !(typeof maxCostUsd === 'number' && maxCostUsd > 0 && Number.isFinite(maxCostUsd))) throw new RangeError('guard.maxCostUsd must be a positive number');
    this.table = new FlowTable(this.limits.maxFlowMs + 60_000);
  }

  /** A call from outside any flow (a user, an API client, a scheduler): it starts one and is not counted. */
  startFlow(to: string, now: number): GuardDecision {
    return { header: encodeFlowState({ startedAt: now, chain: [idOf(to)], calls: 0, recent: [] }), depth: 1 };
  }

  /** A call made while `parent` is being handled: the flow grows by one hop, unless a rule refuses it. */
  childCall(parent: AgentRpcEnvelope, to: string, now: number): GuardDecision | GuardRefusal {
    const carried = decodeFlowState(parent.headers?.[FLOW_HEADER]) ?? { startedAt: now, chain: [idOf(parent.to)], calls: 0, recent: [] };
    const known = this.table.merged(parent.correlationId, carried, now);
    const arrivedAt = this.arrivals.get(parent.messageId) ?? this.olderArrivals.get(parent.messageId);
    const idleHops = arrivedAt !== undefined && now - arrivedAt < IDLE_HOP_MS ? (known.idleHops ?? 0) + 1 : 0;
    const next: FlowState = { ...known, chain: [...known.chain, idOf(to)], calls: known.calls + 1, recent: [...known.recent, now].slice(-RECENT_CALLS_KEPT), idleHops };
    const violation = checkCall(idOf(parent.to), idOf(to), next, now, this.limits);
    if (violation) return { violation, from: idOf(parent.to), to: idOf(to) };
    this.table.record(parent.correlationId, next, now);
    const decision = { header: encodeFlowState(next), depth: collapseChain(next.chain).length };
    return idleHops === IDLE_HOPS_WARNING ? { ...decision, idleHops } : decision;
  }

  /**
   * Checks an arriving request or event. Undefined when it may be dispatched. A call with
   * `causedBy` comes from inside another agent's flow and must carry the flow's state.
   */
  admit(envelope: AgentRpcEnvelope, now: number): GuardRefusal | undefined {
    const from = idOf(envelope.from);
    const to = idOf(envelope.to);
    const state = decodeFlowState(envelope.headers?.[FLOW_HEADER]);
    if (envelope.causedBy === undefined) {
      this.noteArrival(envelope.messageId, now);
      return undefined;
    }
    if (state === undefined) {
      return { violation: { rule: 'correlation-required', message: 'Agent call rejected: correlation ID required for agent-initiated calls' }, from, to };
    }
    const violation = checkCall(from, to, state, now, this.limits) ?? this.checkSpent(decodeUsage(envelope.headers?.[FLOW_USAGE_HEADER]));
    if (violation) return { violation, from, to };
    this.table.record(envelope.correlationId, state, now);
    this.noteArrival(envelope.messageId, now);
    return undefined;
  }

  /** The flow budgets (maxTokens, maxCostUsd) against what a flow has spent; undefined while within them or when there are none. */
  checkSpent(spent: Usage | undefined): GuardViolation | undefined {
    if (spent === undefined || (this.limits.maxTokens === undefined && this.limits.maxCostUsd === undefined)) return undefined;
    return checkBudget({ tokens: spent.inputTokens + spent.outputTokens, costUsd: spent.costUsd }, this.limits);
  }

  /**
   * Receiver side, after `admit` passed: checks and records the call in the shared store,
   * so agents, rate and total count every branch of the flow in every process.
   */
  async admitShared(envelope: AgentRpcEnvelope, now: number): Promise<GuardRefusal | undefined> {
    const state = this.store && envelope.causedBy !== undefined ? decodeFlowState(envelope.headers?.[FLOW_HEADER]) : undefined;
    if (!this.store || !state) return undefined;
    const call = { correlationId: envelope.correlationId, messageId: envelope.messageId, agents: state.chain, startedAt: state.startedAt, now };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RpcError('EAGENTRPC_FLOW_STORE_UNAVAILABLE', `flow store did not answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
    });
    try {
      const result = await Promise.race([this.store.record(call, this.limits), timeout]);
      if (result.admitted) return undefined;
      const violation = checkFlowCounts(result.counts, this.limits);
      return violation ? { violation, from: idOf(envelope.from), to: idOf(envelope.to) } : undefined;
    } catch (error) {
      this.onStoreError(error);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private noteArrival(messageId: string, now: number): void {
    // Bounded: only requests being handled now matter, and handlers are few at a time. Two
    // generations instead of evicting the oldest entry one by one: deleting from the front
    // of a large Map makes V8 walk its tombstones on every eviction.
    if (this.arrivals.size >= 5_000) {
      this.olderArrivals = this.arrivals;
      this.arrivals = new Map();
    }
    this.arrivals.set(messageId, now);
  }
}

export function guardError(violation: GuardViolation, from: string, to: string): RpcError {
  return new RpcError('EAGENTRPC_GUARD_REJECTED', violation.message, {
    details: { rule: violation.rule, from, to, ...(violation.value !== undefined ? { value: violation.value, limit: violation.limit } : {}) },
  });
}
