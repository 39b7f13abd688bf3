import { FLOW_HEADER, RunawayGuard } from '../src/guard/index.js';
import { newMessageId, type AgentRpcEnvelope } from '../src/envelope/index.js';
import { BENCH_PAYLOAD } from './payload.js';

const guard = new RunawayGuard();

/** A request as a sync call sends it under internal auth (which attaches nothing): the stage benches' sample. */
export function syncCallRequest(messageId: string = newMessageId()): AgentRpcEnvelope {
  return {
    version: 1,
    kind: 'request',
    messageId,
    correlationId: newMessageId(),
    from: 'agent://caller',
    to: 'agent://echo',
    capability: 'echo',
    replyTo: 'memory://agents.caller.responses.0a1b2c3d4e5f',
    deadline: Date.now() + 30_000,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', [FLOW_HEADER]: guard.startFlow('agent://echo', Date.now()).header },
    payload: BENCH_PAYLOAD,
  };
}
