import { requestAgent } from './request-agent.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/store.js';
import { askApproval } from './approval-chain.js';
import { runInDispatch } from './flow-context.js';
import { flowSpentAt, NO_USAGE, recordUsage, usageCausedBy } from './flow-usage.js';
import { guardError } from '../guard/runaway-guard.js';
import { reportGuardRejection } from './guard-report.js';
import { toWireError, type Handler, type HandlerContext, type HandlerResult, type RespondOptions } from './handler.js';
import type { InboxCore } from './node-core.js';
import { isPromise } from '../maybe-promise.js';
import { withinDeadline } from './handler-deadline.js';
import type { Receipt } from './receipt.js';
import type { ResponsePayload } from './response-payload.js';
import { parseTraceparent, TRACEPARENT_HEADER } from './trace-context.js';

/** A request with less time than this left is not handed back for redelivery. */
const DEADLINE_SLACK_MS = 10;

interface FinalReply {
  readonly reply: StoredReply | undefined;
  readonly payload: ResponsePayload;
  readonly sent: Promise<void> | undefined;
}

/**
 * Runs the handler for a claimed request inside its flow context, then settles through
 * the receipt:
 * - a value or an error the caller is told about → the final response (`receipt.answer`);
 * - a retriable error the redelivery policy allows again → release the claim and hand the
 *   message back; once attempts are exhausted the caller gets the error and the message is
 *   dead-lettered as `handler-failed` so an operator can requeue it.
 */
export async function dispatchRequest(core: InboxCore, envelope: AgentRpcEnvelope, receipt: Receipt, handler: Handler): Promise<void> {
  let final: Promise<FinalReply> | undefined;
  const sendFinal = async (payload: ResponsePayload): Promise<FinalReply> => {
    const built = receipt.reply(payload);
    const reply = isPromise(built) ? await built : built;
    // Recorded for dedupe before it goes out (see Receipt.answer).
    const sent = reply ? receipt.sendRecorded(reply, payload) : undefined;
    // Observed here so a failure is never unhandled; receipt.answer handles it.
    sent?.catch(() => undefined);
    return { reply, payload, sent };
  };

  const sendProgress = async (payload: ResponsePayload): Promise<void> => {
    const reply = await receipt.reply(payload);
    if (reply) await receipt.send(reply, payload);
  };
  const requestApproval: HandlerContext['requestApproval'] = async (prompt) => {
    core.tracing.approvalRequested(envelope, prompt.type);
    const answer = await askApproval(core, envelope, prompt, sendProgress);
    core.tracing.approvalAnswered(envelope, answer.approved, answer.reason);
    return answer;
  };
  const respond = async (result: HandlerResult, options?: RespondOptions): Promise<void> => {
    if (final) throw new RpcError('EAGENTRPC_HANDLER_FAILED', 'respond() called after the final response was sent');
    if (options?.progress) {
      if (!result.ok) throw new TypeError('respond: an error result cannot be a progress response');
      return sendProgress({ data: result.data ?? null, ok: true, progress: true });
    }
    final = sendFinal(toPayload(result));
    await (await final).sent;
  };
  const ctx = new RequestContext(core, envelope, receipt.delivery.attempt, respond, requestApproval);
  if (receipt.source.execution) ctx.execution = receipt.source.execution;

  core.metrics.handlerStarted?.(envelope.capability);
  const span = core.tracing.startHandler(receipt.span, envelope, receipt.delivery.attempt);
  core.flows.handlerStarted?.(envelope);
  const started = performance.now();
  let thrown: RpcError | undefined;
  let value: unknown;
  try {
    const call = (): unknown => handler(envelope.payload, ctx);
    const run = span.isRecording() ? () => core.tracing.withSpan(span, call) : call;
    const running = core.implicitFlow ? runInDispatch({ agentUri: core.uri, request: envelope, askApproval: requestApproval }, run) : run();
    // A caller waiting on the exchange itself (an HTTP front door) is answered at the deadline, whatever the handler does.
    const bounded = receipt.source.boundsHandlers && envelope.deadline !== undefined && isPromise(running);
    value = await (bounded ? withinDeadline(core, envelope as AgentRpcEnvelope & { deadline: number }, running) : running);
  } catch (error) {
    thrown = toRpcError(error);
  }
  const cancelled = core.cancellations.release(envelope.messageId);
  // A result that breaks the capability's published output schema is not sent as success.
  if (!thrown && !final) thrown = core.schemas.check(envelope.capability, 'output', value ?? null);
  if (core.metrics.handlerCompleted || core.flows.handlerEnded) {
    const durationMs = performance.now() - started;
    core.metrics.handlerCompleted?.(envelope.capability, thrown === undefined, durationMs);
    core.flows.handlerEnded?.(envelope, thrown?.code, durationMs);
  }

  core.tracing.endHandler(span, envelope, thrown);
  if (thrown) logHandlerError(core, envelope, thrown);
  if (thrown && !final) {
    // A cancelled request is given up on purpose: whatever its handler throws then (its
    // signal's retriable EAGENTRPC_ABANDONED, passed on) never brings it back, nor to the DLQ.
    // At its deadline a redelivery would only be refused as late (EAGENTRPC_DEADLINE_EXCEEDED): the caller gets this error.
    // The slack covers a deadline timer that fired while the clock still read a few ms before it.
    const expired = envelope.deadline !== undefined && envelope.deadline <= core.clock.now() + DEADLINE_SLACK_MS;
    if (thrown.retriable && !cancelled && !expired && receipt.mayRetry) {
      await receipt.releaseClaim();
      core.metrics.redeliveryRequested?.(envelope.capability, receipt.delivery.attempt);
      return receipt.retryLater();
    }
    if (thrown.retriable && !cancelled) {
      await receipt.deadLetter({ kind: 'handler-failed', reason: thrown.code, detail: thrown.message, error: thrown.toWire() });
    }
    final = sendFinal({ error: thrown.toWire(), ok: false });
  }
  let settled: FinalReply;
  try {
    settled = await (final ?? sendFinal({ data: value ?? null, ok: true }));
  } catch (error) {
    // The result could not be encoded or signed: the caller still gets a typed answer.
    const failure = new RpcError('EAGENTRPC_HANDLER_FAILED', `could not send the result: ${toRpcError(error).message}`);
    logHandlerError(core, envelope, failure);
    settled = await sendFinal({ error: failure.toWire(), ok: false });
  }
  // A request answered with an error failed: its process span says so, not only the handler's.
  if (!settled.payload.ok) core.tracing.failed(receipt.span, settled.payload.error);
  return receipt.answer(settled.reply, { ...(settled.sent ? { sent: settled.sent } : {}), payload: settled.payload });
}

// Response payloads are built with their members in RFC 8785 order (data/error, ok,
// progress), so the encoder can write them without sorting a copy.
function toPayload(result: HandlerResult): ResponsePayload {
  if (result.ok) return { data: result.data ?? null, ok: true };
  return { error: toWireError(result.error), ok: false };
}

/**
 * What a handler gets. Its functions are own properties, so a handler may destructure them;
 * `signal` and `logger` are getters on the prototype (created on first use), because a
 * getter in an object literal sends V8 down a slow path that costs about a microsecond per
 * request.
 */
class RequestContext implements HandlerContext {
  readonly correlationId: string;
  readonly from: string;
  readonly capability: string;
  readonly deadline: number | undefined;
  readonly requestAgent: HandlerContext['requestAgent'];
  readonly reportUsage: HandlerContext['reportUsage'];
  readonly usage: HandlerContext['usage'];
  readonly checkFlowBudget: HandlerContext['checkFlowBudget'];
  readonly tracing: HandlerContext['tracing'];
  execution: HandlerContext['execution'];
  readonly #core: InboxCore;

  constructor(
    core: InboxCore,
    readonly envelope: AgentRpcEnvelope,
    readonly attempt: number,
    readonly respond: HandlerContext['respond'],
    readonly requestApproval: HandlerContext['requestApproval'],
  ) {
    this.#core = core;
    this.correlationId = envelope.correlationId;
    this.from = envelope.from;
    this.capability = envelope.capability;
    this.deadline = envelope.deadline;
    this.requestAgent = (options) => requestAgent(core, options, envelope, requestApproval);
    this.reportUsage = (usage) => recordUsage(envelope, usage);
    this.usage = () => usageCausedBy(envelope) ?? NO_USAGE;
    this.checkFlowBudget = () => flowBudgetError(core, envelope);
    this.tracing = core.tracing;
  }

  get signal(): AbortSignal {
    return this.#core.cancellations.signalFor(this.envelope, this.#core.clock.now());
  }

  #logger: HandlerContext['logger'] | undefined;

  /** The node's logger with the request's ids bound, made on first use (a handler that never logs pays nothing). */
  get logger(): HandlerContext['logger'] {
    this.#logger ??= this.#core.logger.child(requestLogBindings(this.envelope));
    return this.#logger;
  }
}

/** What every line a handler logs carries: the request, its flow and its trace. */
function requestLogBindings(envelope: AgentRpcEnvelope): Record<string, unknown> {
  const traceId = parseTraceparent(envelope.headers?.[TRACEPARENT_HEADER])?.traceId;
  return {
    correlationId: envelope.correlationId,
    messageId: envelope.messageId,
    capability: envelope.capability,
    from: envelope.from,
    ...(traceId === undefined ? {} : { traceId }),
  };
}

/** A handler spending model tokens checks the flow's budget before each model request, like the guard before each call. */
function flowBudgetError(core: InboxCore, envelope: AgentRpcEnvelope): RpcError | undefined {
  const violation = core.guard.checkSpent(flowSpentAt(envelope));
  if (!violation) return undefined;
  reportGuardRejection(core, violation, core.agentId, core.agentId, envelope.correlationId);
  return guardError(violation, core.agentId, core.agentId);
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
