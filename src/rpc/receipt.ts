import type { AgentRpcEnvelope } from '../envelope/index.js';
import { toRpcError, type RpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/index.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import type { Delivery, RpcTransport, TransportKind } from '../transport.js';
import { deadLetter, type DeadLetterInput } from './dead-letter.js';
import type { InboxCore } from './node-core.js';
import { deferDelay, mayRedeliver, redeliveryDelay } from './redelivery.js';
import { buildResponse, publishReply } from './responder.js';
import type { ResponsePayload } from './response-payload.js';
import type { ExecutionScope } from './execution-scope.js';
import type { HandlerInvoker } from './middleware.js';
import type { Span } from '@opentelemetry/api';

/** Replies to a request that came through the inbound port go back to whoever handed it in. */
export type ReplyChannel = (reply: StoredReply, payload: ResponsePayload | undefined) => void;

/** Where a delivery came from, as far as the inbox cares. */
export interface DeliverySource {
  /** The transport kind: named in DLQ records and transport-natural dedupe keys. */
  readonly kind: TransportKind;
  /** `nack()` makes the message come again (the transport's `redelivery` trait). */
  readonly redelivers: boolean;
  /** When set, replies are handed here instead of being published to the request's `replyTo`. */
  readonly replies?: ReplyChannel;
  /** A remote execution request's context (the inbound port only). */
  readonly execution?: ExecutionScope;
  /** The caller waits on this exchange (an HTTP front door): at the request's deadline it is answered EAGENTRPC_TIMEOUT even while the handler runs on. */
  readonly boundsHandlers?: boolean;
  /** The `messaging.system` of its spans when not `kind`: the inbound port's front doors speak `http`. */
  readonly system?: string;
  /** The transport it came through: its broker (`server.address`, `server.port`) is named on process spans. */
  readonly transport?: Pick<RpcTransport, 'brokerEndpoint'>;
}

/** A claimed message the inbox will not dispatch, and why. */
export interface Refusal {
  readonly kind: DeadLetterInput['kind'];
  readonly reason: string;
  /** What the caller is told, where it waits for an answer. */
  readonly error: RpcError;
  /** `always`: kept in the DLQ even when the caller is told (a fault an operator should see). */
  readonly deadLetter?: 'always' | 'when-nobody-waits';
}

/**
 * One delivery on its way through the inbox: the delivery, where it came from, and — once
 * decoded and claimed — its envelope and dedupe key. Every way a delivery can end is a
 * method here (answer, refuse, reject, retryLater, defer), so each ends in an ack, a nack,
 * a deferral or a DLQ record in exactly one place.
 */
export class Receipt {
  envelope: AgentRpcEnvelope | undefined;
  /** From the decoder: the bytes after `auth`, when the sender wrote the canonical form (the verifier checks them as they are). */
  signedTail: Uint8Array | undefined;
  dedupeKey: string | undefined;
  /** The delivery's process span (requests and events), ended when the inbox is done with it. */
  span: Span | undefined;
  /** The capability's handler, wrapped in the node's middleware (set by the capability stage). */
  invoke: HandlerInvoker | undefined;

  constructor(
    private readonly core: InboxCore,
    readonly delivery: Delivery,
    readonly source: DeliverySource,
  ) {}

  /** The redelivery policy allows another attempt of this message. */
  get mayRetry(): boolean {
    return mayRedeliver(this.source.redelivers, this.delivery.attempt, this.core.limits);
  }

  /** Hands the delivery back to its transport, to come again after the policy's delay. */
  retryLater(): void {
    this.delivery.nack({ delayMs: redeliveryDelay(this.core.limits, this.delivery.attempt) });
  }

  /**
   * A live run holds the message's claim: hands the delivery back uncounted, to look again
   * once that run may be done or its lease (`leaseLeftMs`) has ended.
   */
  defer(leaseLeftMs: number | undefined): void {
    this.delivery.defer(deferDelay(this.core.limits, this.core.dedupe.leaseMs, leaseLeftMs));
  }

  /** The signed response to the request; undefined when it wants no reply. */
  reply(payload: ResponsePayload): MaybePromise<StoredReply | undefined> {
    return buildResponse(this.core, this.request, payload);
  }

  /** Sends a reply (progress or final) to where the request wants it. */
  send(reply: StoredReply, payload?: ResponsePayload): Promise<void> {
    if (this.source.replies) {
      this.source.replies(reply, payload);
      return Promise.resolve();
    }
    return publishReply(this.core, reply, this.request.correlationId);
  }

  /**
   * Ends a request whose final reply is known: records it for dedupe, sends it (unless
   * `options.sent` carries a send already started by `sendRecorded`) and acks. The reply
   * is recorded before it goes out, so a process that dies in between leaves a redelivery
   * to be answered with this very reply — never a second run with a second answer. A
   * retriable send failure on a transport that redelivers hands the request back: its
   * redelivery sends the stored reply instead of running the handler again. Otherwise the
   * reply is dead-lettered as `reply-undeliverable`.
   */
  answer(reply: StoredReply | undefined, options: { sent?: Promise<void>; payload?: ResponsePayload } = {}): MaybePromise<void> {
    if (options.sent && reply) return this.ackOnceSent(reply, options.sent);
    const recording = this.core.dedupe.complete(this.key, reply);
    if (isPromise(recording)) return recording.then(() => this.sendAndAck(reply, options.payload));
    return this.sendAndAck(reply, options.payload);
  }

  private sendAndAck(reply: StoredReply | undefined, payload: ResponsePayload | undefined): MaybePromise<void> {
    if (!reply) return this.delivery.ack();
    let sending: Promise<void>;
    try {
      sending = this.send(reply, payload);
    } catch (error) {
      sending = Promise.reject(error);
    }
    return this.ackOnceSent(reply, sending);
  }

  private ackOnceSent(reply: StoredReply, sending: Promise<void>): Promise<void> {
    return sending.then(
      () => this.delivery.ack(),
      (error: unknown) => this.replyFailed(reply, error),
    );
  }

  private async replyFailed(reply: StoredReply, error: unknown): Promise<void> {
    const failure = toRpcError(error);
    if (failure.retriable && this.mayRetry) return this.retryLater();
    await this.deadLetter({
      kind: 'reply-undeliverable',
      reason: failure.code,
      detail: failure.message,
      error: failure.toWire(),
      body: reply.body,
      replyTo: reply.replyTo,
    });
    this.delivery.ack();
  }

  /** Records the final reply for dedupe, then sends it (see `answer`, which then gets the send as `sent`). */
  sendRecorded(reply: StoredReply, payload?: ResponsePayload): Promise<void> {
    try {
      const recording = this.core.dedupe.complete(this.key, reply);
      return isPromise(recording) ? recording.then(() => this.send(reply, payload)) : this.send(reply, payload);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A claimed request that will not be dispatched: the caller is told where it waits; the DLQ keeps it otherwise. */
  async refuse(refusal: Refusal): Promise<void> {
    this.core.tracing.failed(this.span, refusal.error);
    if (this.envelope) this.core.flows.requestRefused?.(this.envelope, refusal.kind, refusal.error.code);
    const wire = refusal.error.toWire();
    const payload: ResponsePayload = { error: wire, ok: false };
    const built = this.reply(payload);
    const reply = isPromise(built) ? await built : built;
    if (!reply || refusal.deadLetter === 'always') {
      await this.deadLetter({ kind: refusal.kind, reason: refusal.reason, detail: refusal.error.message, error: wire });
    }
    return this.answer(reply, { payload });
  }

  /**
   * A message that never reached a claim (undecodable, foreign, unverified, unmatched): it
   * goes to the DLQ, and a request's caller is told when there is something to tell.
   */
  async reject(input: DeadLetterInput, replyError?: RpcError): Promise<void> {
    if (replyError) this.core.tracing.failed(this.span, replyError);
    await this.deadLetter(replyError ? { ...input, error: replyError.toWire() } : input);
    const envelope = this.envelope;
    if (replyError && envelope?.kind === 'request' && envelope.replyTo !== undefined) {
      const payload: ResponsePayload = { error: replyError.toWire(), ok: false };
      try {
        const reply = await this.reply(payload);
        if (reply) await this.send(reply, payload);
      } catch (error) {
        this.core.logger.warn({ err: toRpcError(error), messageId: envelope.messageId }, 'could not tell the caller about a rejection');
      }
    }
    this.delivery.ack();
  }

  /** Keeps the delivery in the DLQ; rejects when the DLQ cannot store it (the inbox then redelivers). */
  deadLetter(input: DeadLetterInput): Promise<void> {
    this.core.tracing.dlqRecorded(this.span, input.kind, input.reason);
    return deadLetter(this.core, this.delivery, this.source.kind, input, this.envelope);
  }

  /** Drops this attempt's dedupe claim, so the redelivery runs the handler again. */
  async releaseClaim(): Promise<void> {
    const releasing = this.core.dedupe.release(this.key);
    if (isPromise(releasing)) await releasing;
  }

  /** The decoded envelope (stages after `decode` only). */
  get request(): AgentRpcEnvelope {
    if (!this.envelope) throw new TypeError('Receipt: no envelope decoded yet');
    return this.envelope;
  }

  private get key(): string {
    if (this.dedupeKey === undefined) throw new TypeError('Receipt: message not claimed');
    return this.dedupeKey;
  }
}
