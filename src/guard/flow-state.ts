/**
 * What a flow carries from hop to hop, in the `agent-rpc-flow` header (covered by the
 * signature, so a signed envelope's flow state cannot be rewritten): when the flow
 * started, the raw chain of agents called, how many agent-to-agent calls it made, and the
 * times of its most recent calls (for the rate rule).
 *
 * Wire form, chosen to need no JSON escaping inside the envelope's headers:
 * `1;<startedAt>;<calls>;<agent,agent,...>;<ms after start of recent calls, comma-separated>;<idle hops>`
 * (agent ids never contain `;` or `,`).
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
  /** Consecutive hops whose handler called on almost at once, doing no work of its own. */
  readonly idleHops?: number;
}

export const RECENT_CALLS_KEPT = 256;
// Beyond this the chain is trimmed from the front: the depth rule refuses long before.
const MAX_CHAIN = 256;
const AGENT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const COUNT_RE = /^\d{1,16}$/;
// Offsets may be negative: the processes of a flow do not share a clock.
const OFFSET_RE = /^-?\d{1,16}$/;

export function encodeFlowState(state: FlowState): string {
  const recent = state.recent.slice(-RECENT_CALLS_KEPT).map((at) => at - state.startedAt);
  return `1;${state.startedAt};${state.calls};${state.chain.slice(-MAX_CHAIN).join(',')};${recent.join(',')};${state.idleHops ?? 0}`;
}

/** Undefined for a missing or malformed header (the flow is then treated as starting here). */
export function decodeFlowState(header: string | undefined): FlowState | undefined {
  if (header === undefined || header.length > 65_536) return undefined;
  const parts = header.split(';');
  if (parts.length !== 6 || parts[0] !== '1') return undefined;
  const [, start, calls, chain, recent, idle] = parts as [string, string, string, string, string, string];
  if (!COUNT_RE.test(start) || !COUNT_RE.test(calls) || !COUNT_RE.test(idle)) return undefined;
  const startedAt = Number(start);
  const ids = chain === '' ? [] : chain.split(',');
  if (!ids.every((id) => AGENT_ID_RE.test(id))) return undefined;
  const offsets = recent === '' ? [] : recent.split(',');
  if (!offsets.every((offset) => OFFSET_RE.test(offset))) return undefined;
  return { startedAt, chain: ids, calls: Number(calls), recent: offsets.map((offset) => startedAt + Number(offset)), idleHops: Number(idle) };
}
