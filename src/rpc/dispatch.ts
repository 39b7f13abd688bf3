import { requestAgent } from './request-agent.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/store.js';
import type { Delivery, RpcTransport } from '../transport.js';
import type { DeadLetterInput } from './dead-letter.js';
import { deliverFinalReply } from './deliver-reply.js';
import { runInDispatch } from './flow-context.js';
import { toWireError, type Handler, type HandlerContext, type HandlerResult, type RespondOptions } from './handler.js';
import type { NodeCore } from './node-core.js';
import { isPromise } from '../maybe-promise.js';
import { retryDelay } from './retry-delay.js';
import { buildResponse, publishReply, sendResponse } from './responder.js';
import type { ResponsePayload } from './response-payload.js';

export interface DispatchInput {
  readonly envelope: AgentRpcEnvelope;
  readonly dedupeKey: string;
  readonly delivery: Delivery;
  readonly transport: RpcTransport;
  readonly handler: Handler;
  readonly deadLetter: (input: DeadLetterInput) => Promise<void>;
}

interface FinalReply {
  reply: StoredReply | undefined;
  published: Promise<void> | undefined;
}

/**
 * Runs the handler for a claimed request inside its flow context, then settles:
 * - a value or an error the caller is told about → final response (deliverFinalReply);
 * - a retriable error with attempts left on a redelivering transport → release the claim
 *   and nack; once attempts are exhausted the caller gets the error and the message is
 *   dead-lettered as `handler-failed` so an operator can requeue it.
 */
export async function dispatchRequest(core: NodeCore, input: DispatchInput): Promise<void> {
  const { envelope, delivery, transport, handler } = input;
  let final: Promise<FinalReply> | undefined;
  const sendFinal = async (payload: ResponsePayload): Promise<FinalReply> => {
    const built = buildResponse(core, envelope, payload);
    const reply = isPromise(built) ? await built : built;
    const published = reply ? publishReply(core, reply, envelope.correlationId) : undefined;
    // Observed here so a failure is never unhandled; deliverFinalReply handles it.
    published?.catch(() => undefined);
    return { reply, published };
  };

  const ctx: HandlerContext = {
    envelope,
    correlationId: envelope.correlationId,
    from: envelope.from,
    capability: envelope.capability,
    deadline: envelope.deadline,
    attempt: delivery.attempt,
    logger: core.logger,
    requestAgent: (options) => requestAgent(core, options),
    requestApproval: (prompt) => core.approvals.request(envelope, prompt),
    respond: async (result: HandlerResult, options?: RespondOptions) => {
      if (final) throw new RpcError('EAGENTRPC_HANDLER_FAILED', 'respond() called after the final response was sent');
      if (options?.progress) {
        if (!result.ok) throw new TypeError('respond: an error result cannot be a progress response');
        await sendResponse(core, envelope, { ok: true, data: result.data ?? null, progress: true });
        return;
      }
      final = sendFinal(toPayload(result));
      await (await final).published;
    },
  };

  core.metrics.handlerStarted?.(envelope.capability);
  const started = performance.now();
  let thrown: RpcError | undefined;
  let value: unknown;
  try {
    value = await runInDispatch({ agentUri: core.uri, request: envelope }, () => handler(envelope.payload, ctx));
  } catch (error) {
    thrown = toRpcError(error);
  }
  core.metrics.handlerCompleted?.(envelope.capability, thrown === undefined, performance.now() - started);

  // A result that breaks the capability's published output schema is not sent as success.
  if (!thrown && !final) thrown = core.schemas.check(envelope.capability, 'output', value ?? null);
  if (thrown) logHandlerError(core, envelope, thrown);
  if (thrown && !final) {
    const limits = core.limits;
    if (thrown.retriable && transport.traits.redelivery && delivery.attempt < limits.maxDeliveryAttempts) {
      const releasing = core.dedupe.release(input.dedupeKey);
      if (isPromise(releasing)) await releasing;
      core.metrics.redeliveryRequested?.(envelope.capability, delivery.attempt);
      return delivery.nack({ delayMs: retryDelay(limits.retryDelayMs, delivery.attempt) });
    }
    if (thrown.retriable) {
      await input.deadLetter({ kind: 'handler-failed', reason: thrown.code, detail: thrown.message, error: thrown.toWire() });
    }
    final = sendFinal({ ok: false, error: thrown.toWire() });
  }
  let settled: FinalReply;
  try {
    settled = await (final ?? sendFinal({ ok: true, data: value ?? null }));
  } catch (error) {
    // The result could not be encoded or signed: the caller still gets a typed answer.
    const failure = new RpcError('EAGENTRPC_HANDLER_FAILED', `could not send the result: ${toRpcError(error).message}`);
    logHandlerError(core, envelope, failure);
    settled = await sendFinal({ ok: false, error: failure.toWire() });
  }
  return deliverFinalReply(core, envelope, input.dedupeKey, delivery, transport, settled.reply, input.deadLetter, settled.published);
}

function toPayload(result: HandlerResult): ResponsePayload {
  if (result.ok) return { ok: true, data: result.data ?? null };
  return { ok: false, error: toWireError(result.error) };
}

function logHandlerError(core: NodeCore, envelope: AgentRpcEnvelope, error: RpcError): void {
  if (!core.logger.isLevelEnabled('warn')) return;
  core.logger.warn(
    {
      code: error.code,
      err: error.cause ?? error,
      messageId: envelope.messageId,
      correlationId: envelope.correlationId,
      capability: envelope.capability,
      from: envelope.from,
      to: envelope.to,
    },
    `handler for ${envelope.capability} failed: ${error.message}`,
  );
}
