import { RECENT_CALLS_KEPT, type FlowState } from './flow-state.js';

interface LocalFlow {
  calls: number;
  recent: number[];
  expiresAt: number;
}

/**
 * What this process knows about each live flow beyond what arrived in envelopes: the
 * calls its own agents made (parallel calls from one handler are siblings that never see
 * each other's envelopes). Entries expire with their flow and are swept lazily.
 */
export class FlowTable {
  private readonly flows = new Map<string, LocalFlow>();
  private nextSweep = 0;

  constructor(private readonly ttlMs: number) {}

  /** The flow state to extend for a new call: the envelope's, merged with what happened here. */
  merged(correlationId: string, carried: FlowState): FlowState {
    const local = this.flows.get(correlationId);
    if (!local) return carried;
    return { ...carried, calls: Math.max(carried.calls, local.calls), recent: mergeRecent(carried.recent, local.recent) };
  }

  /** Remembers a flow's counts after a call made (or received) here. */
  record(correlationId: string, state: FlowState, now: number): void {
    this.sweep(now);
    const local = this.flows.get(correlationId);
    const recent = local ? mergeRecent(local.recent, state.recent) : [...state.recent];
    this.flows.set(correlationId, { calls: Math.max(local?.calls ?? 0, state.calls), recent, expiresAt: state.startedAt + this.ttlMs });
  }

  get size(): number {
    return this.flows.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 10_000;
    for (const [id, flow] of this.flows) if (flow.expiresAt <= now) this.flows.delete(id);
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
