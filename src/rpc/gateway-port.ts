import { deny, type AuthVerdict } from '../auth/index.js';
import { createDelivery } from '../delivery.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { GatewayAnswer, GatewayPort } from '../gateway.js';
import { parseReplyTo, type Delivery } from '../transport.js';
import { recordAuthDecision } from './auth-decision.js';
import type { Inbox } from './inbox.js';
import type { InboxCore } from './node-core.js';
import { Receipt, type DeliverySource } from './receipt.js';
import { settleResponse } from './settle-response.js';
import { handleUndeliverable } from './undeliverable.js';

/**
 * The port a gateway hands back what became of its calls through. Answers the gateway made
 * itself settle the waiting call directly (audited as the gateway's own); response envelopes
 * a peer signed go through the inbox, verified like any other; failures settle the caller or
 * go to the DLQ. `listening` is false once the node stopped reading answers (it closes).
 */
export function createGatewayPort(core: InboxCore, inbox: Inbox, kind: string, listening: () => boolean): GatewayPort {
  const source: DeliverySource = { kind, redelivers: true };
  return {
    answer(request, answer) {
      const topic = replyTopicOf(request);
      if (topic === undefined) return; // an event: nobody waits for its answer
      const response = responseTo(request, answer);
      if (!listening()) return core.logger.warn({ deliveryId: response.messageId, topic }, `${kind} answer arrived after its caller stopped listening`);
      // Settled here and now, never handed over again: nothing acks or nacks it but this port.
      const delivery = createDelivery({ body: encodeEnvelope(response), key: undefined, coordinates: { topic, deliveryId: response.messageId }, attempt: 1, onAck: () => undefined, onNack: () => undefined });
      settleGatewayAnswer(core, kind, response, delivery);
    },
    deliverSigned(request, body) {
      const topic = replyTopicOf(request);
      if (topic === undefined) return;
      const deliveryId = `response-to-${request.messageId}`;
      if (!listening()) return core.logger.warn({ deliveryId, topic }, `${kind} response arrived after its caller stopped listening`);
      const handOver = (attempt: number): void => inbox.receive(localDelivery(body, topic, deliveryId, handOver, attempt), source);
      handOver(1);
    },
    failed(call, error) {
      handleUndeliverable(core, kind, { topic: call.address, body: call.body, error }).catch((failure: unknown) =>
        core.logger.error({ err: failure, topic: call.address }, 'could not record an undeliverable message'),
      );
    },
  };
}

function replyTopicOf(request: AgentRpcEnvelope): string | undefined {
  return request.replyTo === undefined ? undefined : parseReplyTo(request.replyTo)?.topic;
}

/** The response envelope of a gateway's answer, as if the peer had sent it. */
function responseTo(request: AgentRpcEnvelope, payload: GatewayAnswer): AgentRpcEnvelope {
  const response: AgentRpcEnvelope = {
    version: 1,
    kind: 'response',
    messageId: newMessageId(),
    correlationId: request.correlationId,
    causedBy: request.messageId,
    from: request.to,
    to: request.from,
    capability: request.capability,
    payload,
  };
  if (request.tenantId !== undefined) response.tenantId = request.tenantId;
  return response;
}

/**
 * Accepted as the gateway's own and audited as such (provider `<kind>-gateway`), unless it
 * answers a call that went out on something else; then settled like a response from a
 * broker: one nobody waits for is dead-lettered.
 */
function settleGatewayAnswer(core: InboxCore, kind: string, response: AgentRpcEnvelope, delivery: Delivery): void {
  const receipt = new Receipt(core, delivery, { kind, redelivers: false });
  receipt.envelope = response;
  const carrier = core.registry.transportOf(response.causedBy!);
  const verdict: AuthVerdict = carrier === undefined || carrier === kind ? { ok: true, subject: response.from } : deny('not-the-gateway', `${kind} answered a call that went out over ${carrier}`);
  recordAuthDecision(core, `${kind}-gateway`, response, verdict);
  const settled = verdict.ok
    ? settleResponse(core, receipt)
    : receipt.reject({ kind: 'auth-rejected', reason: verdict.reason, detail: verdict.detail }, new RpcError('EAGENTRPC_AUTH_REJECTED', `authentication failed: ${verdict.reason}`, { details: { reason: verdict.reason } }));
  settled?.catch((error: unknown) => core.logger.error({ err: error, messageId: response.messageId }, `could not settle a ${kind} answer`));
}

/** A delivery made in this process: no broker keeps it, so a nack hands it over again after the delay, counted; a defer, uncounted. */
function localDelivery(body: Uint8Array, topic: string, deliveryId: string, again: (attempt: number) => void, attempt = 1): Delivery {
  const after = (next: number) => (delayMs: number) => void setTimeout(() => again(next), delayMs).unref();
  return createDelivery({ body, key: undefined, coordinates: { topic, deliveryId }, attempt, onAck: () => undefined, onNack: after(attempt + 1), onDefer: after(attempt) });
}
