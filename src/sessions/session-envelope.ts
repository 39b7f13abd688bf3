import { formatReplyTo } from '../transport.js';
import type { InboundPort } from '../rpc/index.js';
import { agentIdOf } from '../envelope/index.js';
import { FLOW_HEADER } from '../guard/index.js';
import { continuedFlowHeader, type SessionFlow } from '../remote-nodes/index.js';

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
  /** The caller's flow, when a remote_agent call continues one. */
  readonly flow?: SessionFlow;
}

/**
 * The request a message session sends to its agent: payload `{message}`, a new flow,
 * signed with the agent's own provider, so the inbox verifies, guards, audits and counts
 * it like any request that arrives over a broker.
 */
export function messageRequestBody(port: InboundPort, request: MessageRequest): Promise<Uint8Array> {
  return port.signOwnRequest({
    messageId: request.messageId,
    from: SESSION_API_CALLER,
    capability: request.capability,
    payload: { message: request.message },
    replyTo: formatReplyTo('http', `sessions.${request.sessionId}`),
    deadline: request.deadline,
    headers: {
      [SESSION_HEADER]: request.sessionId,
      [SESSION_USER_HEADER]: request.user,
      ...(request.flow ? { [FLOW_HEADER]: continuedFlowHeader(request.flow, agentIdOf(port.uri), Date.now()) } : {}),
    },
    ...(request.flow ? { correlationId: request.flow.correlationId, causedBy: request.flow.causedBy } : {}),
  });
}
