import type { Message } from '@a2a-js/sdk';
import { FLOW_HEADER } from '../../guard/index.js';
import { CORRELATION_ID_RE, sessionFlowSchema } from '../../remote-nodes/index.js';

/** What a task's request takes from the caller's message metadata. */
export interface CallerContext {
  readonly correlationId?: string;
  readonly causedBy?: string;
  readonly deadline: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * An agent-rpc caller (the `a2a` gateway) sends its flow and deadline in the message
 * metadata: `agentRpcFlow` carries the call's own `agent-rpc-flow` header (this hop already
 * counted by the caller's guard, so it is taken as is, not counted again), its
 * correlationId and the request that caused it, so the runaway guard here sees the chain
 * that crossed A2A exactly as a broker hop would have brought it; a bare `correlationId`
 * keeps the flow's id; `deadline` (epoch ms) shortens the task's own. Other clients send
 * none of these and start a flow. A malformed `agentRpcFlow` is refused, not ignored:
 * dropping it would let a loop through.
 */
export function callerContextOf(message: Message, ownDeadline: number): CallerContext | { readonly malformed: string } {
  const metadata = message.metadata ?? {};
  const deadline = typeof metadata['deadline'] === 'number' && Number.isFinite(metadata['deadline']) ? Math.min(ownDeadline, metadata['deadline']) : ownDeadline;
  if (metadata['agentRpcFlow'] !== undefined) {
    const flow = sessionFlowSchema.safeParse(metadata['agentRpcFlow']);
    if (!flow.success) return { malformed: 'metadata agentRpcFlow must be {correlationId, causedBy, state}, the flow of an agent-rpc call' };
    const { correlationId, causedBy, state } = flow.data;
    return { correlationId, causedBy, deadline, headers: { [FLOW_HEADER]: state } };
  }
  const correlationId = metadata['correlationId'];
  return { ...(typeof correlationId === 'string' && CORRELATION_ID_RE.test(correlationId) ? { correlationId } : {}), deadline, headers: {} };
}
