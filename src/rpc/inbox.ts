import type { AuthVerdict, VerifyContext } from '../auth/provider.js';
import { deny } from '../auth/reasons.js';
import { decodeEnvelope, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import type { Delivery } from '../transport.js';
import { dispatchRequest } from './dispatch.js';
import type { Handler } from './handler.js';
import { verifierFor, type InboxCore } from './node-core.js';
import { recordAuthDecision, recordTenantRejection } from './auth-decision.js';
import { guardError } from '../guard/runaway-guard.js';
import { reportGuardRejection } from './guard-report.js';
import { Receipt, type DeliverySource } from './receipt.js';
import { asResponsePayload } from './response-payload.js';
import { decodeUsage, USAGE_HEADER } from './flow-usage.js';
import { CANCEL_CAPABILITY, cancelledRequestId } from './cancellations.js';
import { Semaphore } from './semaphore.js';

/**
 * The receiving pipeline, the same for every transport and for the inbound port:
 * bytes → decode (limits, strict schema) → tenant → addressee → auth → by kind:
 * response → settle the pending call; request/event → dedupe → guard → deadline → dispatch.
 * Every delivery ends acked (dispatched, answered or dead-lettered) or nacked (to be
 * redelivered), through its Receipt; nothing is dropped without a DLQ record, a metric
 * and a log line.
 */
export class Inbox {
  private readonly active = new Set<Promise<void>>();
  private readonly handlerSlots: Semaphore;

  constructor(
    private readonly core: InboxCore,
    private readonly handlers: ReadonlyMap<string, Handler>,
  ) {
    this.handlerSlots = new Semaphore(core.limits.concurrency);
  }

  /** Deliveries being processed; `drain()` waits for them on shutdown. */
  get activeCount(): number {
    return this.active.size;
  }

  /**
   * `decoded`: the envelope of `delivery.body`, when whoever hands it in has already decoded
   * it with `decodeEnvelope` under this node's limits (the inbound port), so it is not
   * parsed twice.
   */
  receive(delivery: Delivery, source: DeliverySource, decoded?: AgentRpcEnvelope): void {
    const receipt = new Receipt(this.core, delivery, source);
    const work = this.process(receipt, decoded).catch((error: unknown) => {
      // A DLQ that cannot store the message's record after its last attempt (or once its
      // broker gave up on it) would send it round for ever: acked, logged and counted instead.
      if (error instanceof RpcError && error.code === 'EAGENTRPC_DLQ_WRITE_FAILED' && (delivery.exhausted || !receipt.mayRetry)) return this.dropUnrecorded(receipt, error);
      // Reached only when even the DLQ could not take the message: hand it back to the
      // transport so it is delivered again rather than lost.
      this.core.logger.error({ err: error, topic: delivery.coordinates.topic }, 'inbox could not finish a delivery; redelivering');
      receipt.retryLater();
    });
    this.active.add(work);
    void work.finally(() => {
      this.active.delete(work);
      receipt.span?.end();
    });
  }

  private dropUnrecorded(receipt: Receipt, error: RpcError): void {
    const { delivery, source } = receipt;
    this.core.logger.error(
      { err: error, ...error.details, transport: source.kind, coordinates: delivery.coordinates, attempt: delivery.attempt, messageId: receipt.envelope?.messageId },
      'the DLQ could not keep a message after its last attempt: acked without a record',
    );
    this.core.metrics.transportDropped?.(source.kind, 'dlq-write-failed');
    delivery.ack();
  }

  async drain(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  private async process(receipt: Receipt, decoded: AgentRpcEnvelope | undefined): Promise<void> {
    const { core } = this;
    let envelope = decoded;
    let signedTail: Uint8Array | undefined;
    if (!envelope) {
      const result = decodeEnvelope(receipt.delivery.body, core.limits);
      if (!result.ok) return receipt.reject({ kind: 'decode-failed', reason: result.reason, detail: result.detail });
      envelope = result.envelope;
      signedTail = result.signedTail;
    }
    receipt.envelope = envelope;
    if (envelope.kind !== 'response') receipt.span = core.tracing.startProcess(envelope, receipt.source.system ?? receipt.source.kind, receipt.delivery.coordinates.topic, receipt.source.transport);
    if (envelope.tenantId !== core.tenantId) {
      const detail = `envelope tenant ${envelope.tenantId ?? '(none)'} does not match bus scope ${core.tenantId ?? '(none)'}`;
      recordTenantRejection(core, envelope, detail);
      return receipt.reject({ kind: 'tenant-mismatch', reason: 'tenant-mismatch', detail });
    }
    if (envelope.to !== core.uri) {
      const detail = `envelope addressed to ${envelope.to} arrived at ${core.uri}`;
      return receipt.reject({ kind: 'misrouted', reason: 'wrong-recipient', detail });
    }
    // A gateway transport's responses were made in this process (see TransportTraits.gateway).
    const pendingVerdict =
      receipt.source.gateway && envelope.kind === 'response'
        ? this.trustGateway(envelope, receipt.source.kind)
        : this.verify(envelope, { deliveryId: receipt.delivery.coordinates.deliveryId, signedTail });
    const verdict = isPromise(pendingVerdict) ? await pendingVerdict : pendingVerdict;
    if (!verdict.ok) {
      const error = new RpcError('EAGENTRPC_AUTH_REJECTED', `authentication failed: ${verdict.reason}`, { details: { reason: verdict.reason } });
      return receipt.reject({ kind: 'auth-rejected', reason: verdict.reason, detail: verdict.detail }, error);
    }
    if (envelope.kind === 'response') return this.settleResponse(envelope, receipt);
    return this.handleIncoming(envelope, receipt);
  }

  /**
   * Accepted as the gateway's own, and audited as such (provider `<kind>-gateway`), unless
   * it answers a call waiting on another transport. A response nobody waits for goes on to
   * settleResponse, which dead-letters it as for any transport.
   */
  private trustGateway(envelope: AgentRpcEnvelope, kind: string): AuthVerdict {
    const carrier = envelope.causedBy === undefined ? undefined : this.core.registry.transportOf(envelope.causedBy);
    const verdict: AuthVerdict = carrier === undefined || carrier === kind ? { ok: true, subject: envelope.from } : deny('not-the-gateway', `${kind} answered a call that went out over ${carrier}`);
    recordAuthDecision(this.core, `${kind}-gateway`, envelope, verdict);
    return verdict;
  }

  /** Fail closed: a provider that throws (or rejects) denies. Every decision is audited. */
  private verify(envelope: AgentRpcEnvelope, context: VerifyContext): MaybePromise<AuthVerdict> {
    const provider = verifierFor(this.core, envelope.from);
    const decide = (verdict: AuthVerdict): AuthVerdict => {
      recordAuthDecision(this.core, provider.name, envelope, verdict);
      return verdict;
    };
    const denyThrown = (error: unknown): AuthVerdict => decide(deny('verifier-error', error instanceof Error ? error.message : String(error)));
    try {
      const verdict = provider.verify(envelope, context);
      return isPromise(verdict) ? verdict.then(decide, denyThrown) : decide(verdict);
    } catch (error) {
      return denyThrown(error);
    }
  }

  private async settleResponse(envelope: AgentRpcEnvelope, receipt: Receipt): Promise<void> {
    const { registry } = this.core;
    const requestId = envelope.causedBy;
    const payload = asResponsePayload(envelope.payload);
    let matched = false;
    if (requestId !== undefined) {
      if (!payload) {
        const error = new RpcError('EAGENTRPC_INVALID_RESPONSE', `response from ${envelope.from} is not a result object`);
        matched = registry.settle(requestId, { ok: false, error }, true);
      } else if (payload.ok && payload.approval) matched = registry.approval(requestId, payload.approval);
      else if (payload.ok && payload.progress) matched = registry.progress(requestId, payload.data);
      else {
        const usageHeader = envelope.headers?.[USAGE_HEADER];
        const usage = usageHeader === undefined ? undefined : decodeUsage(usageHeader);
        const outcome = payload.ok ? { ok: true as const, data: payload.data } : { ok: false as const, error: RpcError.fromWire(payload.error) };
        matched = registry.settle(requestId, usage === undefined ? outcome : { ...outcome, usage }, true);
      }
    }
    if (matched) return receipt.delivery.ack();
    if (requestId !== undefined && registry.wasAnswered(requestId)) {
      // A second answer to a call already settled (a retried request answered twice).
      this.core.metrics.duplicateSkipped?.(envelope.capability);
      return receipt.delivery.ack();
    }
    this.core.metrics.unmatchedResponse?.(envelope.capability);
    const detail = `no pending call ${requestId ?? '(no causedBy)'}: late, duplicate or not ours`;
    return receipt.reject({ kind: 'unmatched-response', reason: 'no-pending-call', detail });
  }

  private async handleIncoming(envelope: AgentRpcEnvelope, receipt: Receipt): Promise<void> {
    const { core } = this;
    const { delivery } = receipt;
    receipt.dedupeKey = core.dedupe.keyOf(envelope.messageId, delivery, receipt.source.kind);
    const pendingClaim = core.dedupe.claim(receipt.dedupeKey);
    const claim = isPromise(pendingClaim) ? await pendingClaim : pendingClaim;
    if (claim.state !== 'claimed') {
      core.metrics.duplicateSkipped?.(envelope.capability);
      if (core.logger.isLevelEnabled('debug')) {
        core.logger.debug({ messageId: envelope.messageId, correlationId: envelope.correlationId, state: claim.state }, 'duplicate delivery not dispatched');
      }
      // Done: answered with the stored reply — even when the broker has given up on the
      // message, so a request already answered is never answered again with an error.
      if (claim.state === 'done') return receipt.answer(claim.reply);
      // A live run holds it (another replica, or this process): look again later without
      // spending an attempt — by then it is done (answer again) or its lease lapsed (run it).
      return receipt.defer(claim.leaseLeftMs);
    }
    if (claim.takenOverFrom) {
      core.logger.info({ messageId: envelope.messageId, correlationId: envelope.correlationId, previousLife: claim.takenOverFrom.life }, 'claim of a previous life of this instance taken over');
    }
    if (delivery.exhausted) {
      // The broker stopped redelivering (each delivery outlived its ack timeout or crashed
      // its consumer) and nobody answered it: keep it in the DLQ and tell the caller.
      const error = new RpcError('EAGENTRPC_HANDLER_FAILED', `the broker gave up after ${delivery.attempt - 1} deliveries without an answer`, {
        details: { attempt: delivery.attempt },
      });
      return receipt.refuse({ kind: 'handler-failed', reason: 'max-deliver', error, deadLetter: 'always' });
    }
    let refused = core.guard.admit(envelope, core.clock.now());
    if (!refused && core.guard.store) refused = await core.guard.admitShared(envelope, core.clock.now());
    if (refused) {
      reportGuardRejection(core, refused.violation, refused.from, refused.to, envelope.correlationId);
      core.tracing.guardRefused(receipt.span, refused.violation.rule, refused.from, refused.to);
      const error = guardError(refused.violation, refused.from, refused.to);
      return receipt.refuse({ kind: 'guard-rejected', reason: refused.violation.rule, error });
    }
    if (envelope.deadline !== undefined && envelope.deadline <= core.clock.now()) {
      const error = new RpcError('EAGENTRPC_DEADLINE_EXCEEDED', `request arrived ${core.clock.now() - envelope.deadline} ms after its deadline`, {
        details: { deadline: envelope.deadline },
      });
      return receipt.refuse({ kind: 'deadline-expired', reason: 'deadline-expired', error });
    }
    if (envelope.kind === 'event') {
      if (envelope.capability === CANCEL_CAPABILITY) {
        const requestId = cancelledRequestId(envelope);
        if (requestId !== undefined) core.cancellations.cancel(requestId, `by ${envelope.from}`, envelope.from);
        return receipt.answer(undefined);
      }
      core.bus.emit('agent.rpc.event', { envelope });
      return receipt.answer(undefined);
    }
    const handler = this.handlers.get(envelope.capability);
    if (!handler) {
      const error = new RpcError('EAGENTRPC_UNKNOWN_CAPABILITY', `${core.uri} has no capability ${envelope.capability}`, {
        details: { capability: envelope.capability },
      });
      return receipt.refuse({ kind: 'unknown-capability', reason: 'no-handler', error, deadLetter: 'always' });
    }
    const violation = core.schemas.check(envelope.capability, 'input', envelope.payload);
    if (violation) return receipt.refuse({ kind: 'schema-violation', reason: 'input', error: violation, deadLetter: 'always' });
    const slot = this.handlerSlots.acquire();
    if (slot) await slot;
    try {
      await dispatchRequest(core, envelope, receipt, handler);
    } finally {
      this.handlerSlots.release();
    }
  }
}
