/**
 * What a flow carries from hop to hop, in the `agent-rpc-flow` header (covered by the
 * signature, so a signed envelope's flow state cannot be rewritten): when the flow
 * started, the raw chain of agents called, how many agent-to-agent calls it made, and the
 * times of its most recent calls (for the rate rule).
 */
export const FLOW_HEADER = 'agent-rpc-flow';

export interface FlowState {
  /** ms since epoch of the flow's first call. */
  readonly startedAt: number;
  /** Agent ids called, hop by hop (the first is the one the user called). */
  readonly chain: readonly string[];
  /** Agent-to-agent calls made in the flow so far, as far as this branch knows. */
  readonly calls: number;
  /** Times (ms) of the most recent agent-to-agent calls, oldest first, at most `RECENT_CALLS_KEPT`. */
  readonly recent: readonly number[];
}

export const RECENT_CALLS_KEPT = 256;
// Beyond this the chain is trimmed from the front: the depth rule refuses long before.
const MAX_CHAIN = 256;

export function encodeFlowState(state: FlowState): string {
  return JSON.stringify({ s: state.startedAt, c: state.chain.slice(-MAX_CHAIN), n: state.calls, r: state.recent.slice(-RECENT_CALLS_KEPT) });
}

/** Undefined for a missing or malformed header (the flow is then treated as starting here). */
export function decodeFlowState(header: string | undefined): FlowState | undefined {
  if (header === undefined || header.length > 16_384) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(header);
  } catch {
    return undefined;
  }
  const { s, c, n, r } = (raw ?? {}) as { s?: unknown; c?: unknown; n?: unknown; r?: unknown };
  const ints = (value: unknown): value is number[] => Array.isArray(value) && value.every((v) => Number.isSafeInteger(v));
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(n) || !Array.isArray(c) || !c.every((id) => typeof id === 'string') || !ints(r)) return undefined;
  return { startedAt: s as number, chain: c as string[], calls: n as number, recent: r };
}
