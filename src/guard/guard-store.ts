import type { FlowCounts, GuardLimits } from './guard-rules.js';

/** One agent-to-agent call as the receiver admits it. */
export interface FlowCall {
  readonly correlationId: string;
  /** The request's messageId: a redelivery of the same request is not counted twice. */
  readonly messageId: string;
  /** Every agent the call's chain names (the receiver included). */
  readonly agents: readonly string[];
  /** When the flow started: the store forgets it once the flow's duration limit has passed. */
  readonly startedAt: number;
  readonly now: number;
}

export interface FlowRecordResult {
  /** False when recording the call would break a limit: it was not recorded. */
  readonly admitted: boolean;
  /** The flow's counts with this call included. */
  readonly counts: FlowCounts;
}

/**
 * Counts of whole flows, shared by every process that handles them, so the rules that
 * need the whole flow (agents, rate, total) hold when a flow fans out over processes.
 * `record` checks and records one call atomically.
 */
export interface GuardStore {
  record(call: FlowCall, limits: GuardLimits): Promise<FlowRecordResult>;
  close(): Promise<void>;
}
