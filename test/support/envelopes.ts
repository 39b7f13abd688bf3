import { newMessageId, type AgentRpcEnvelope } from '../../src/envelope/index.js';

/** A request as a foreign peer would publish it to `agent://svc`, replying to `test.replies`. */
export function foreignRequest(overrides: Partial<AgentRpcEnvelope> = {}): AgentRpcEnvelope {
  return {
    version: 1,
    kind: 'request',
    messageId: newMessageId(),
    correlationId: newMessageId(),
    from: 'agent://tester',
    to: 'agent://svc',
    capability: 'work',
    replyTo: 'memory://test.replies',
    payload: null,
    ...overrides,
  };
}
