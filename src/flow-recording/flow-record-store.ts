import type { Clock } from '../clock.js';
import { mergeCall, type FlowCall } from './flow-record.js';

/** How much a flow store keeps: the oldest flows go first. */
export interface FlowRetention {
  /** Flows kept; the oldest go first. Default 1,000. */
  readonly maxFlows: number;
  /** A flow not updated for this long is dropped. Default 3,600,000 (1 h). */
  readonly maxAgeMs: number;
  /** Calls kept per flow; later ones are counted in `droppedCalls` only. Default 500. */
  readonly maxCallsPerFlow: number;
}

export const DEFAULT_RETENTION: FlowRetention = { maxFlows: 1000, maxAgeMs: 3_600_000, maxCallsPerFlow: 500 };

export interface StoredFlow {
  readonly correlationId: string;
  /** Calls by id, in the order they became known. */
  readonly calls: Map<string, FlowCall>;
  /** Epoch ms of the last change. */
  updatedAt: number;
  droppedCalls: number;
}

export type FlowListener = (call: FlowCall) => void;

/**
 * The recent flows of this process (and, with `flows.view`, of the fleet), in memory,
 * bounded by count (the oldest go first), age (since a flow's last call) and calls per flow. Listeners of a flow hear each call as it
 * changes (the live page).
 */
export class FlowRecordStore {
  private readonly flows = new Map<string, StoredFlow>();
  // Correlation ids in the order their flows began: eviction takes from the head. A queue
  // rather than Map order, because re-inserting into a Map on every update leaves holes that
  // every walk from its start must step over (the hot path paid for them).
  private order: string[] = [];
  private head = 0;
  private readonly listeners = new Map<string, Set<FlowListener>>();
  readonly retention: FlowRetention;

  constructor(
    private readonly clock: Clock,
    retention: Partial<FlowRetention> = {},
  ) {
    this.retention = { ...DEFAULT_RETENTION, ...retention };
  }

  /** Adds a call or merges it into the one with its id; returns what is stored now. */
  put(update: FlowCall): FlowCall | undefined {
    const now = this.clock.now();
    let flow = this.flows.get(update.correlationId);
    if (!flow) {
      flow = { correlationId: update.correlationId, calls: new Map(), updatedAt: now, droppedCalls: 0 };
      this.flows.set(update.correlationId, flow);
      this.order.push(update.correlationId);
      this.evict(now);
    }
    flow.updatedAt = now;
    const known = flow.calls.get(update.id);
    let stored: FlowCall | undefined;
    if (known) stored = mergeCall(known, update);
    else if (flow.calls.size < this.retention.maxCallsPerFlow) stored = update;
    if (stored) flow.calls.set(update.id, stored);
    else flow.droppedCalls++;
    if (stored && this.listeners.size > 0) for (const listener of this.listeners.get(update.correlationId) ?? []) listener(stored);
    return stored;
  }

  get(correlationId: string): StoredFlow | undefined {
    this.evict(this.clock.now());
    const flow = this.flows.get(correlationId);
    return flow && this.clock.now() - flow.updatedAt <= this.retention.maxAgeMs ? flow : undefined;
  }

  /** The flows kept, the most recently begun first. */
  recent(limit = this.retention.maxFlows): StoredFlow[] {
    const now = this.clock.now();
    this.evict(now);
    const flows: StoredFlow[] = [];
    for (let i = this.order.length - 1; i >= this.head && flows.length < limit; i--) {
      const flow = this.flows.get(this.order[i]!);
      if (flow && now - flow.updatedAt <= this.retention.maxAgeMs) flows.push(flow);
    }
    return flows;
  }

  get size(): number {
    return this.flows.size;
  }

  /** Hears every change to one flow's calls until the returned function is called. */
  listen(correlationId: string, listener: FlowListener): () => void {
    let set = this.listeners.get(correlationId);
    if (!set) this.listeners.set(correlationId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(correlationId) === set) this.listeners.delete(correlationId);
    };
  }

  /** Drops the oldest flows past the count, and from the head those idle past the age. */
  private evict(now: number): void {
    const { maxFlows, maxAgeMs } = this.retention;
    while (this.head < this.order.length) {
      const id = this.order[this.head]!;
      const flow = this.flows.get(id);
      if (flow && this.flows.size <= maxFlows && now - flow.updatedAt <= maxAgeMs) break;
      this.flows.delete(id);
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
