import { attachAuth } from '../../auth/attach.js';
import { encodeEnvelope, newCorrelationId, type AgentRpcEnvelope } from '../../envelope/index.js';
import { FLOW_HEADER } from '../../guard/flow-state.js';
import { formatReplyTo } from '../../transport.js';
import type { NodeCore } from '../../rpc/node-core.js';
import { childTraceparent, TRACEPARENT_HEADER } from '../../rpc/trace-context.js';

/** Who a message session's request comes from; the API user is named in a header. */
export const SESSION_API_CALLER = 'agent://session-api';
export const SESSION_HEADER = 'agent-rpc-session';
export const SESSION_USER_HEADER = 'agent-rpc-session-user';

export interface MessageRequest {
  readonly messageId: string;
  readonly sessionId: string;
  readonly user: string;
  readonly capability: string;
  readonly message: string;
  readonly deadline: number;
}

/**
 * The request a message session sends to its agent: payload `{message}`, a new flow,
 * signed with the agent's own provider, so the inbox verifies, guards, audits and counts
 * it like any request that arrives over a broker.
 */
export async function messageRequestBody(core: NodeCore, request: MessageRequest): Promise<Uint8Array> {
  const envelope: AgentRpcEnvelope = {
    version: 1,
    kind: 'request',
    messageId: request.messageId,
    correlationId: newCorrelationId(),
    from: SESSION_API_CALLER,
    to: core.uri,
    capability: request.capability,
    replyTo: formatReplyTo('http', `sessions.${request.sessionId}`),
    deadline: request.deadline,
    headers: {
      [TRACEPARENT_HEADER]: childTraceparent(undefined),
      [FLOW_HEADER]: core.guard.startFlow(core.uri, core.clock.now()).header,
      [SESSION_HEADER]: request.sessionId,
      [SESSION_USER_HEADER]: request.user,
    },
    payload: { message: request.message },
  };
  if (core.tenantId !== undefined) envelope.tenantId = core.tenantId;
  return encodeEnvelope(await attachAuth(core.auth, envelope));
}
