import type { AgentRpcEnvelope } from '../envelope/index.js';
import { toRpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/store.js';
import type { Delivery, RpcTransport } from '../transport.js';
import type { DeadLetterInput } from './dead-letter.js';
import { isPromise } from '../maybe-promise.js';
import type { NodeCore } from './node-core.js';
import { publishReply } from './responder.js';
import { retryDelay } from './retry-delay.js';

/**
 * Ends a request whose final reply is known: publishes it (unless `published` already
 * carries that attempt), records it for dedupe and acks. If publishing fails with a
 * retriable error and the transport can redeliver, the reply is stored and the request
 * nacked: its redelivery sends the stored reply again instead of re-running the handler.
 * Otherwise the reply is dead-lettered as `reply-undeliverable`.
 */
export async function deliverFinalReply(
  core: NodeCore,
  envelope: AgentRpcEnvelope,
  dedupeKey: string,
  delivery: Delivery,
  transport: RpcTransport,
  reply: StoredReply | undefined,
  deadLetter: (input: DeadLetterInput) => Promise<void>,
  published?: Promise<void>,
): Promise<void> {
  const { limits, dedupe } = core;
  if (reply) {
    try {
      await (published ?? publishReply(core, reply, envelope.correlationId));
    } catch (error) {
      const failure = toRpcError(error);
      const recording = dedupe.complete(dedupeKey, reply);
      if (isPromise(recording)) await recording;
      if (failure.retriable && transport.traits.redelivery && delivery.attempt < limits.maxDeliveryAttempts) {
        return delivery.nack({ delayMs: retryDelay(limits.retryDelayMs, delivery.attempt) });
      }
      await deadLetter({
        kind: 'reply-undeliverable',
        reason: failure.code,
        detail: failure.message,
        error: failure.toWire(),
        body: reply.body,
        replyTo: reply.replyTo,
      });
      return delivery.ack();
    }
  }
  const recording = dedupe.complete(dedupeKey, reply);
  if (isPromise(recording)) await recording;
  delivery.ack();
}
