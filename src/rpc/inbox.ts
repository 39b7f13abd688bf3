import type { AuthVerdict } from '../auth/provider.js';
import { deny } from '../auth/reasons.js';
import { decodeEnvelope, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import type { Delivery, RpcTransport } from '../transport.js';
import { deadLetter, type DeadLetterInput } from './dead-letter.js';
import { deliverFinalReply } from './deliver-reply.js';
import { dispatchRequest } from './dispatch.js';
import type { Handler } from './handler.js';
import { verifierFor, type NodeCore } from './node-core.js';
import { recordAuthDecision } from './auth-decision.js';
import { guardError } from '../guard/runaway-guard.js';
import { reportGuardRejection } from './guard-report.js';
import { buildResponse, sendResponse } from './responder.js';
import { asResponsePayload } from './response-payload.js';
import { retryDelay } from './retry-delay.js';
import { Semaphore } from './semaphore.js';

/**
 * The receiving pipeline, the same for every transport:
 * bytes → decode (limits, strict schema) → tenant → addressee → auth → by kind:
 * response → settle the pending call; request/event → dedupe → deadline → dispatch.
 * Every delivery ends acked (dispatched, answered or dead-lettered) or nacked (to be
 * redelivered); nothing is dropped without a DLQ record, a metric and a log line.
 */
export class Inbox {
  private readonly active = new Set<Promise<void>>();
  private readonly handlerSlots: Semaphore;

  constructor(
    private readonly core: NodeCore,
    private readonly handlers: ReadonlyMap<string, Handler>,
  ) {
    this.handlerSlots = new Semaphore(core.limits.concurrency);
  }

  /** Deliveries being processed; `drain()` waits for them on shutdown. */
  get activeCount(): number {
    return this.active.size;
  }

  receive(delivery: Delivery, transport: RpcTransport): void {
    const work = this.process(delivery, transport).catch((error: unknown) => {
      // Reached only when even the DLQ could not take the message: hand it back to the
      // transport so it is delivered again rather than lost.
      this.core.logger.error({ err: error, topic: delivery.coordinates.topic }, 'inbox could not finish a delivery; redelivering');
      delivery.nack({ delayMs: retryDelay(this.core.limits.retryDelayMs, delivery.attempt) });
    });
    this.active.add(work);
    void work.finally(() => this.active.delete(work));
  }

  async drain(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  private async process(delivery: Delivery, transport: RpcTransport): Promise<void> {
    const { core } = this;
    const decoded = decodeEnvelope(delivery.body, core.limits);
    if (!decoded.ok) {
      return this.reject(delivery, transport, { kind: 'decode-failed', reason: decoded.reason, detail: decoded.detail });
    }
    const envelope = decoded.envelope;
    if (envelope.tenantId !== core.tenantId) {
      const detail = `envelope tenant ${envelope.tenantId ?? '(none)'} does not match bus scope ${core.tenantId ?? '(none)'}`;
      return this.reject(delivery, transport, { kind: 'tenant-mismatch', reason: 'tenant-mismatch', detail }, envelope);
    }
    if (envelope.to !== core.uri) {
      const detail = `envelope addressed to ${envelope.to} arrived at ${core.uri}`;
      return this.reject(delivery, transport, { kind: 'misrouted', reason: 'wrong-recipient', detail }, envelope);
    }
    const pendingVerdict = this.verify(envelope, delivery, transport);
    const verdict = isPromise(pendingVerdict) ? await pendingVerdict : pendingVerdict;
    if (!verdict.ok) {
      const error = new RpcError('EAGENTRPC_AUTH_REJECTED', `authentication failed: ${verdict.reason}`, { details: { reason: verdict.reason } });
      return this.reject(delivery, transport, { kind: 'auth-rejected', reason: verdict.reason, detail: verdict.detail }, envelope, error);
    }
    if (envelope.kind === 'response') return this.settleResponse(envelope, delivery, transport);
    return this.handleIncoming(envelope, delivery, transport);
  }

  /** Fail closed: a provider that throws (or rejects) denies. Every decision is audited. */
  private verify(envelope: AgentRpcEnvelope, delivery: Delivery, transport: RpcTransport): MaybePromise<AuthVerdict> {
    const provider = verifierFor(this.core, envelope.from);
    const decide = (verdict: AuthVerdict): AuthVerdict => {
      recordAuthDecision(this.core, provider.name, envelope, verdict);
      return verdict;
    };
    const denyThrown = (error: unknown): AuthVerdict => decide(deny('verifier-error', error instanceof Error ? error.message : String(error)));
    try {
      const verdict = provider.verify(envelope, { deliveryId: delivery.coordinates.deliveryId });
      return isPromise(verdict) ? verdict.then(decide, denyThrown) : decide(verdict);
    } catch (error) {
      return denyThrown(error);
    }
  }

  private async settleResponse(envelope: AgentRpcEnvelope, delivery: Delivery, transport: RpcTransport): Promise<void> {
    const { registry } = this.core;
    const requestId = envelope.causedBy;
    const payload = asResponsePayload(envelope.payload);
    let matched = false;
    if (requestId !== undefined) {
      if (!payload) {
        const error = new RpcError('EAGENTRPC_INVALID_RESPONSE', `response from ${envelope.from} is not a result object`);
        matched = registry.settle(requestId, { ok: false, error }, true);
      } else if (!payload.ok) matched = registry.settle(requestId, { ok: false, error: RpcError.fromWire(payload.error) }, true);
      else if (payload.progress) matched = registry.progress(requestId, payload.data);
      else matched = registry.settle(requestId, { ok: true, data: payload.data }, true);
    }
    if (matched) return delivery.ack();
    if (requestId !== undefined && registry.wasAnswered(requestId)) {
      // A second answer to a call already settled (a retried request answered twice).
      this.core.metrics.duplicateSkipped?.(envelope.capability);
      return delivery.ack();
    }
    this.core.metrics.unmatchedResponse?.(envelope.capability);
    const detail = `no pending call ${requestId ?? '(no causedBy)'}: late, duplicate or not ours`;
    return this.reject(delivery, transport, { kind: 'unmatched-response', reason: 'no-pending-call', detail }, envelope);
  }

  private async handleIncoming(envelope: AgentRpcEnvelope, delivery: Delivery, transport: RpcTransport): Promise<void> {
    const { core } = this;
    const dedupeKey = core.dedupe.keyOf(envelope.messageId, delivery, transport.kind);
    if (delivery.exhausted) {
      // The broker stopped redelivering (each delivery outlived its ack timeout or crashed
      // its consumer): keep it in the DLQ and tell the caller.
      const error = new RpcError('EAGENTRPC_HANDLER_FAILED', `the broker gave up after ${delivery.attempt - 1} deliveries without an answer`, {
        details: { attempt: delivery.attempt },
      });
      return this.refuse(envelope, dedupeKey, delivery, transport, { kind: 'handler-failed', reason: 'max-deliver', detail: error.message }, error, true);
    }
    const pendingClaim = core.dedupe.claim(dedupeKey);
    const claim = isPromise(pendingClaim) ? await pendingClaim : pendingClaim;
    if (claim.state !== 'claimed') {
      core.metrics.duplicateSkipped?.(envelope.capability);
      if (core.logger.isLevelEnabled('debug')) {
        core.logger.debug({ messageId: envelope.messageId, correlationId: envelope.correlationId, state: claim.state }, 'duplicate delivery not dispatched');
      }
      // Another delivery of it is running (here, or in a process that may have died): come
      // back later — by then it is done (answer again) or its claim has lapsed (run it).
      if (claim.state === 'in-progress') return delivery.nack({ delayMs: retryDelay(core.limits.retryDelayMs, delivery.attempt) });
      return deliverFinalReply(core, envelope, dedupeKey, delivery, transport, claim.reply, this.deadLetterFor(delivery, transport, envelope));
    }
    let refused = core.guard.admit(envelope, core.clock.now());
    if (!refused && core.guard.store) refused = await core.guard.admitShared(envelope, core.clock.now());
    if (refused) {
      reportGuardRejection(core, refused.violation, refused.from, refused.to, envelope.correlationId);
      const error = guardError(refused.violation, refused.from, refused.to);
      return this.refuse(envelope, dedupeKey, delivery, transport, { kind: 'guard-rejected', reason: refused.violation.rule, detail: error.message }, error);
    }
    if (envelope.deadline !== undefined && envelope.deadline <= core.clock.now()) {
      const error = new RpcError('EAGENTRPC_DEADLINE_EXCEEDED', `request arrived ${core.clock.now() - envelope.deadline} ms after its deadline`, {
        details: { deadline: envelope.deadline },
      });
      return this.refuse(envelope, dedupeKey, delivery, transport, { kind: 'deadline-expired', reason: 'deadline-expired', detail: error.message }, error);
    }
    if (envelope.kind === 'event') {
      core.bus.emit('agent.rpc.event', { envelope });
      const recording = core.dedupe.complete(dedupeKey, undefined);
      if (isPromise(recording)) await recording;
      return delivery.ack();
    }
    const handler = this.handlers.get(envelope.capability);
    if (!handler) {
      const error = new RpcError('EAGENTRPC_UNKNOWN_CAPABILITY', `${core.uri} has no capability ${envelope.capability}`, {
        details: { capability: envelope.capability },
      });
      return this.refuse(envelope, dedupeKey, delivery, transport, { kind: 'unknown-capability', reason: 'no-handler', detail: error.message }, error, true);
    }
    const violation = core.schemas.check(envelope.capability, 'input', envelope.payload);
    if (violation) {
      const detail = violation.message;
      return this.refuse(envelope, dedupeKey, delivery, transport, { kind: 'schema-violation', reason: 'input', detail }, violation, true);
    }
    const slot = this.handlerSlots.acquire();
    if (slot) await slot;
    try {
      await dispatchRequest(core, { envelope, dedupeKey, delivery, transport, handler, deadLetter: this.deadLetterFor(delivery, transport, envelope) });
    } finally {
      this.handlerSlots.release();
    }
  }

  /**
   * A claimed request that will not be dispatched: the caller gets a typed error where it
   * waits for one; otherwise (or when `alsoDeadLetter`) the message goes to the DLQ.
   */
  private async refuse(
    envelope: AgentRpcEnvelope,
    dedupeKey: string,
    delivery: Delivery,
    transport: RpcTransport,
    input: DeadLetterInput,
    error: RpcError,
    alsoDeadLetter = false,
  ): Promise<void> {
    const reply = await buildResponse(this.core, envelope, { ok: false, error: error.toWire() });
    const deadLetter = this.deadLetterFor(delivery, transport, envelope);
    if (!reply || alsoDeadLetter) await deadLetter({ ...input, error: error.toWire() });
    return deliverFinalReply(this.core, envelope, dedupeKey, delivery, transport, reply, deadLetter);
  }

  /** Dead-letters a message that never reached dispatch; the caller is told where it waits. */
  private async reject(
    delivery: Delivery,
    transport: RpcTransport,
    input: DeadLetterInput,
    envelope?: AgentRpcEnvelope,
    replyError?: RpcError,
  ): Promise<void> {
    await this.deadLetter(delivery, transport, replyError ? { ...input, error: replyError.toWire() } : input, envelope);
    if (replyError && envelope?.kind === 'request' && envelope.replyTo !== undefined) {
      await sendResponse(this.core, envelope, { ok: false, error: replyError.toWire() }).catch((error: unknown) => {
        this.core.logger.warn({ err: toRpcError(error), messageId: envelope.messageId }, 'could not tell the caller about a rejection');
      });
    }
    delivery.ack();
  }

  private deadLetter(delivery: Delivery, transport: RpcTransport, input: DeadLetterInput, envelope?: AgentRpcEnvelope): Promise<void> {
    return deadLetter(this.core, delivery, transport.kind, input, envelope);
  }

  private deadLetterFor(delivery: Delivery, transport: RpcTransport, envelope: AgentRpcEnvelope) {
    return (input: DeadLetterInput): Promise<void> => this.deadLetter(delivery, transport, input, envelope);
  }
}
