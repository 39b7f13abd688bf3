import { z } from 'zod';
import { agentIdOf, type AgentRpcEnvelope } from '../envelope/index.js';
import { decodeFlowState, encodeFlowState, FLOW_HEADER } from '../guard/index.js';
import { currentDispatch } from '../rpc/index.js';

/**
 * The flow a remote session continues: a model agent's `remote_agent` call sends it, so the
 * remote node's guard sees the whole chain across nodes (depth, agents, rate, total, age)
 * and the remote request shares the caller's correlationId.
 */
export interface SessionFlow {
  readonly correlationId: string;
  /** The messageId of the request whose handler called. */
  readonly causedBy: string;
  /** The caller's `agent-rpc-flow` header, as it had it. */
  readonly state: string;
}

/** A correlationId a caller may hand over: a lowercase UUID. */
export const CORRELATION_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const sessionFlowSchema = z.strictObject({
  correlationId: z.string().regex(CORRELATION_ID_RE, 'must be a UUID'),
  causedBy: z.string().min(1).max(128),
  state: z.string().max(65_536).refine((state) => decodeFlowState(state) !== undefined, 'must be an agent-rpc-flow header'),
});

/** The flow header of the session's request: the carried state, one hop longer (to `agentId`), one call more. */
export function continuedFlowHeader(flow: SessionFlow, agentId: string, now: number): string {
  const state = decodeFlowState(flow.state)!;
  return encodeFlowState({ ...state, chain: [...state.chain, agentId], calls: state.calls + 1, recent: [...state.recent, now] });
}

/**
 * The flow a session created while `request` is handled (by agent `agentId`) continues:
 * the request's correlationId, caused by it, with its flow state (a fresh one, this agent
 * alone on the chain, when the request carried none).
 */
export function flowOfRequest(request: Pick<AgentRpcEnvelope, 'correlationId' | 'messageId' | 'headers'>, agentId: string, now = Date.now()): SessionFlow {
  return {
    correlationId: request.correlationId,
    causedBy: request.messageId,
    state: request.headers?.[FLOW_HEADER] ?? encodeFlowState({ startedAt: now, chain: [agentId], calls: 0, recent: [] }),
  };
}

/** The flow of the handler this code runs in (the dispatch context), when there is one. */
export function currentSessionFlow(): SessionFlow | undefined {
  const dispatch = currentDispatch();
  return dispatch ? flowOfRequest(dispatch.request, agentIdOf(dispatch.agentUri)) : undefined;
}
