import { decodeEnvelope, newMessageId } from '../../envelope/index.js';
import { toRpcError } from '../../errors.js';
import { decodeUsage, USAGE_HEADER, type Usage } from '../../flow-usage.js';
import type { ExecutionMessage, ExecutionScope, ExecutionStore, InboundPort, InboundReply } from '../../rpc/index.js';
import { newSpanId, TRACEPARENT_HEADER } from '../../trace-context.js';
import { formatReplyTo } from '../../transport.js';
import type { ExecuteBody } from '../../remote-nodes/index.js';

/** Who an execute request comes from; the executor's user is named in a header. */
export const EXECUTE_API_CALLER = 'agent://execute-api';
export const EXECUTE_USER_HEADER = 'agent-rpc-execute-user';

/** What the worker adds to the executor's context: only the delta. */
export interface UpdatedContext {
  readonly messages: readonly ExecutionMessage[];
  readonly thoughts: readonly string[];
  readonly usage: readonly Usage[];
}

export type ExecuteOutcome =
  | { readonly ok: true; readonly result: unknown; readonly updatedContext: UpdatedContext }
  | { readonly ok: false; readonly status: number; readonly error: { readonly code: string; readonly message: string }; readonly updatedContext: UpdatedContext };

/**
 * One execute request, run as a request envelope to the agent through its inbound port
 * (auth, dedupe, guard, audit, metrics and the DLQ apply): `input` is the payload,
 * `trace_id` the traceparent's trace id, `step_id` the messageId, `parent_step_id` causedBy.
 */
export async function runExecute(port: InboundPort, body: ExecuteBody, capability: string, store: ExecutionStore | undefined, timeoutMs: number): Promise<ExecuteOutcome> {
  const { context } = body;
  const scope: ExecutionScope = {
    messages: context.messages,
    thoughts: context.thoughts,
    ...(store ? { store } : {}),
    added: { messages: [], thoughts: [] },
  };
  const messageId = context.step_id ?? newMessageId();
  const delta = (usage: Usage | undefined): UpdatedContext => ({ messages: scope.added.messages, thoughts: scope.added.thoughts, usage: usage ? [usage] : [] });
  let final: InboundReply | undefined;
  try {
    const request = await port.signOwnRequest({
      messageId,
      from: EXECUTE_API_CALLER,
      capability,
      payload: body.input,
      replyTo: formatReplyTo('http', `execute.${messageId}`),
      deadline: Date.now() + timeoutMs,
      headers: {
        [EXECUTE_USER_HEADER]: body.user_id,
        ...(context.trace_id ? { [TRACEPARENT_HEADER]: `00-${context.trace_id}-${newSpanId()}-01` } : {}),
      },
      ...(context.parent_step_id ? { causedBy: context.parent_step_id } : {}),
    });
    await port.deliver({
      body: request,
      deliveryId: messageId,
      execution: scope,
      onReply: (reply) => {
        if (!reply.payload?.ok || !reply.payload.progress) final = reply;
      },
    });
  } catch (error) {
    const failure = toRpcError(error);
    return { ok: false, status: 503, error: { code: failure.code, message: failure.message }, updatedContext: delta(undefined) };
  }
  if (!final) {
    const error = { code: 'EAGENTRPC_HANDLER_FAILED', message: 'the request was not dispatched; see the worker DLQ' };
    return { ok: false, status: 422, error, updatedContext: delta(undefined) };
  }
  const usage = usageOf(final.body);
  const payload = final.payload;
  if (payload?.ok) return { ok: true, result: payload.data, updatedContext: delta(usage) };
  const error = payload ? { code: payload.error.code, message: payload.error.message } : { code: 'EAGENTRPC_INVALID_RESPONSE', message: 'the agent answered without a result' };
  return { ok: false, status: statusOf(error.code), error, updatedContext: delta(usage) };
}

/** HTTP status of a handler's error (docs/remote-execution.md). */
export function statusOf(code: string): number {
  if (code === 'EAGENTRPC_DEADLINE_EXCEEDED' || code === 'EAGENTRPC_TIMEOUT') return 504;
  if (code === 'EAGENTRPC_GUARD_REJECTED' || code === 'EAGENTRPC_BUSY') return 429;
  if (code === 'EAGENTRPC_AUTH_REJECTED' || code === 'EAGENTRPC_PERMISSION_DENIED') return 403;
  if (code === 'EAGENTRPC_SCHEMA_VIOLATION') return 400;
  return 422;
}

function usageOf(body: Uint8Array): Usage | undefined {
  const decoded = decodeEnvelope(body);
  return decoded.ok ? decodeUsage(decoded.envelope.headers?.[USAGE_HEADER]) : undefined;
}
