import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/index.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import { askApproval } from './approval-chain.js';
import { toWireError, type HandlerResult } from './handler.js';
import { withinDeadline } from './handler-deadline.js';
import type { InboxCore } from './node-core.js';
import type { Receipt } from './receipt.js';
import { RequestContext, requestLogBindings, type ContextActions } from './request-context.js';
import type { ResponsePayload } from './response-payload.js';

/** A request with less time than this left is not handed back for redelivery. */
const DEADLINE_SLACK_MS = 10;

interface FinalReply {
  readonly reply: StoredReply | undefined;
  readonly payload: ResponsePayload;
  readonly sent: Promise<void> | undefined;
}

/**
 * Runs the handler (wrapped in the node's middleware) for a claimed request, then settles
 * through the receipt:
 * - a value or an error the caller is told about → the final response (`receipt.answer`);
 * - a retriable error the redelivery policy allows again → release the claim and hand the
 *   message back; once attempts are exhausted the caller gets the error and the message is
 *   dead-lettered as `handler-failed` so an operator can requeue it.
 * A handler that answers synchronously is answered without a promise until the transport's.
 */
export function dispatchRequest(core: InboxCore, receipt: Receipt): MaybePromise<void> {
  const run = new HandlerRun(core, receipt);
  const envelope = receipt.request;
  let running: unknown;
  try {
    running = receipt.invoke!(envelope.payload, run.ctx);
  } catch (error) {
    return run.ended(undefined, toRpcError(error));
  }
  if (!isPromise(running)) return run.ended(running, undefined);
  // A caller waiting on the exchange itself (an HTTP front door) is answered at the deadline, whatever the handler does.
  const bounded = receipt.source.boundsHandlers && envelope.deadline !== undefined ? withinDeadline(core, envelope as AgentRpcEnvelope & { deadline: number }, running) : running;
  return bounded.then(
    (value) => run.ended(value, undefined),
    (error: unknown) => run.ended(undefined, toRpcError(error)),
  );
}

/** One handler run: its context's actions (respond, approvals) and how its outcome is answered. */
class HandlerRun implements ContextActions {
  readonly ctx: RequestContext;
  /** The final reply, once one is on its way (by `respond` or by the handler's end). */
  private final: MaybePromise<FinalReply> | undefined;

  constructor(
    private readonly core: InboxCore,
    private readonly receipt: Receipt,
  ) {
    this.ctx = new RequestContext(core, receipt.request, receipt.delivery.attempt, this, receipt.source.execution);
  }

  get responded(): boolean {
    return this.final !== undefined;
  }

  async respond(result: HandlerResult, options: { progress?: boolean } | undefined): Promise<void> {
    if (this.final) throw new RpcError('EAGENTRPC_HANDLER_FAILED', 'respond() called after the final response was sent');
    if (options?.progress) {
      if (!result.ok) throw new TypeError('respond: an error result cannot be a progress response');
      return this.sendProgress({ data: result.data ?? null, ok: true, progress: true });
    }
    this.final = this.sendFinal(toPayload(result));
    await (await this.final).sent;
  }

  async requestApproval(prompt: Parameters<ContextActions['requestApproval']>[0]): ReturnType<ContextActions['requestApproval']> {
    const { core } = this;
    const envelope = this.receipt.request;
    core.tracing.approvalRequested(envelope, prompt.type);
    const answer = await askApproval(core, envelope, prompt, (payload) => this.sendProgress(payload));
    core.tracing.approvalAnswered(envelope, answer.approved, answer.reason);
    return answer;
  }

  private async sendProgress(payload: ResponsePayload): Promise<void> {
    const reply = await this.receipt.reply(payload);
    if (reply) await this.receipt.send(reply, payload);
  }

  /** The final reply built (and signed), recorded for dedupe and sent; never throws — a failure is in `sent`, or rejects for a reply that could not be built. */
  private sendFinal(payload: ResponsePayload): MaybePromise<FinalReply> {
    const built = this.receipt.reply(payload);
    const withReply = (reply: StoredReply | undefined): FinalReply => {
      // Recorded for dedupe before it goes out (see Receipt.answer).
      const sent = reply ? this.receipt.sendRecorded(reply, payload) : undefined;
      // Observed here so a failure is never unhandled; receipt.answer handles it.
      sent?.catch(() => undefined);
      return { reply, payload, sent };
    };
    return isPromise(built) ? built.then(withReply) : withReply(built);
  }

  /** The handler's outcome (value, or error thrown) → the final answer, a retry, or both a DLQ record and the error. */
  ended(value: unknown, thrown: RpcError | undefined): MaybePromise<void> {
    const { core, receipt } = this;
    const envelope = receipt.request;
    const cancelled = core.cancellations.release(envelope.messageId);
    if (thrown) logHandlerError(core, envelope, thrown);
    if (thrown && !this.final) {
      // A cancelled request is given up on purpose: whatever its handler throws then (its
      // signal's retriable EAGENTRPC_ABANDONED, passed on) never brings it back, nor to the DLQ.
      // At its deadline a redelivery would only be refused as late (EAGENTRPC_DEADLINE_EXCEEDED): the caller gets this error.
      // The slack covers a deadline timer that fired while the clock still read a few ms before it.
      const expired = envelope.deadline !== undefined && envelope.deadline <= core.clock.now() + DEADLINE_SLACK_MS;
      if (thrown.retriable && !cancelled && !expired && receipt.mayRetry) return this.retry();
      // A failed event has nobody to tell: the DLQ keeps it, whatever the error.
      if ((thrown.retriable || envelope.kind === 'event') && !cancelled) {
        return receipt.deadLetter({ kind: 'handler-failed', reason: thrown.code, detail: thrown.message, error: thrown.toWire() }).then(() => this.answerWith({ error: thrown.toWire(), ok: false }));
      }
      return this.answerWith({ error: thrown.toWire(), ok: false });
    }
    if (this.final) return this.settle(this.final);
    return this.answerWith({ data: value ?? null, ok: true });
  }

  private async retry(): Promise<void> {
    await this.receipt.releaseClaim();
    this.core.metrics.redeliveryRequested?.(this.receipt.request.capability, this.receipt.delivery.attempt);
    return this.receipt.retryLater();
  }

  private answerWith(payload: ResponsePayload): MaybePromise<void> {
    let final: MaybePromise<FinalReply>;
    try {
      final = this.sendFinal(payload);
    } catch (error) {
      final = Promise.reject(error);
    }
    this.final = final;
    return this.settle(final);
  }

  private settle(final: MaybePromise<FinalReply>): MaybePromise<void> {
    if (!isPromise(final)) return this.answered(final);
    return final.then(
      (settled) => this.answered(settled),
      // The result could not be encoded or signed: the caller still gets a typed answer.
      (error: unknown) => {
        const failure = new RpcError('EAGENTRPC_HANDLER_FAILED', `could not send the result: ${toRpcError(error).message}`);
        logHandlerError(this.core, this.receipt.request, failure);
        const payload: ResponsePayload = { error: failure.toWire(), ok: false };
        const again = this.sendFinal(payload);
        return isPromise(again) ? again.then((settled) => this.answered(settled)) : this.answered(again);
      },
    );
  }

  private answered(settled: FinalReply): MaybePromise<void> {
    // A request answered with an error failed: its process span says so, not only the handler's.
    if (!settled.payload.ok) this.core.tracing.failed(this.receipt.span, settled.payload.error);
    return this.receipt.answer(settled.reply, settled.sent ? { sent: settled.sent, payload: settled.payload } : { payload: settled.payload });
  }
}

// Response payloads are built with their members in RFC 8785 order (data/error, ok,
// progress), so the encoder can write them without sorting a copy.
function toPayload(result: HandlerResult): ResponsePayload {
  if (result.ok) return { data: result.data ?? null, ok: true };
  return { error: toWireError(result.error), ok: false };
}

function logHandlerError(core: InboxCore, envelope: AgentRpcEnvelope, error: RpcError): void {
  if (!core.logger.isLevelEnabled('warn')) return;
  core.warnings.warn(
    `handler:${envelope.capability}:${error.code}`,
    { capability: envelope.capability, code: error.code },
    () => ({ code: error.code, err: error.cause ?? error, ...requestLogBindings(envelope), to: envelope.to }),
    `handler for ${envelope.capability} failed: ${error.message}`,
  );
}
