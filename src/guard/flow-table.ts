import { ExpiringMap } from '../expiring-map.js';
import { RECENT_CALLS_KEPT, type FlowState } from './flow-state.js';

/**
 * Flows remembered at most; the oldest go first beyond it. 1,500 flows a second over the
 * default 6-minute span (maxFlowMs + 1 minute) are 540,000.
 */
const MAX_FLOWS = 1_000_000;

interface LocalFlow {
  calls: number;
  recent: number[];
  expiresAt: number;
}

/**
 * What this process knows about each live flow beyond what arrived in envelopes: the
 * calls its own agents made (parallel calls from one handler are siblings that never see
 * each other's envelopes). Entries expire with their flow, swept a few at a time on every
 * record (an ExpiringMap): a walk over every flow every 10 s held the event loop for tens
 * of milliseconds once hundreds of thousands of flows were live.
 */
export class FlowTable {
  private readonly flows = new ExpiringMap<LocalFlow>((flow) => flow.expiresAt, MAX_FLOWS);

  constructor(private readonly ttlMs: number) {}

  /** The flow state to extend for a new call: the envelope's, merged with what happened here. */
  merged(correlationId: string, carried: FlowState, now: number): FlowState {
    const local = this.live(correlationId, now);
    if (!local) return carried;
    return { ...carried, calls: Math.max(carried.calls, local.calls), recent: mergeRecent(carried.recent, local.recent) };
  }

  /** Remembers a flow's counts after a call made (or received) here. */
  record(correlationId: string, state: FlowState, now: number): void {
    this.flows.sweep(now);
    const local = this.live(correlationId, now);
    const recent = local ? mergeRecent(local.recent, state.recent) : [...state.recent];
    this.flows.set(correlationId, { calls: Math.max(local?.calls ?? 0, state.calls), recent, expiresAt: state.startedAt + this.ttlMs });
  }

  get size(): number {
    return this.flows.size;
  }

  /** A flow's entry until it expires, whether or not a sweep has reached it (a call of an old flow is queued behind younger ones). */
  private live(correlationId: string, now: number): LocalFlow | undefined {
    const local = this.flows.get(correlationId);
    return local !== undefined && local.expiresAt > now ? local : undefined;
  }
}

/**
 * Two views of one flow's recent call times (each holds what its branch saw): a time seen
 * k times in one view and m in the other happened max(k, m) times. Several calls can share
 * a millisecond, so this is a multiset merge, not a set union.
 */
function mergeRecent(a: readonly number[], b: readonly number[]): number[] {
  const counts = new Map<number, number>();
  const tally = (list: readonly number[]): Map<number, number> => {
    const own = new Map<number, number>();
    for (const at of list) own.set(at, (own.get(at) ?? 0) + 1);
    return own;
  };
  for (const view of [tally(a), tally(b)]) for (const [at, n] of view) counts.set(at, Math.max(counts.get(at) ?? 0, n));
  const merged: number[] = [];
  for (const [at, n] of counts) for (let i = 0; i < n; i++) merged.push(at);
  return merged.sort((x, y) => x - y).slice(-RECENT_CALLS_KEPT);
}
