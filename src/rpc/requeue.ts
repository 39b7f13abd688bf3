import { decodeEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { TransportKind } from '../transport.js';
import type { InboxCore } from './node-core.js';
import { INBOUND_PORT_KIND, type InboundPort } from './inbound-port.js';
import { publishReply } from './responder.js';

export interface RequeueResult {
  readonly transport: TransportKind;
  /** The topic the kept bytes were published to again. */
  readonly topic: string;
}

/**
 * Sends a DLQ record's bytes through the pipeline again: an inbound message goes back to
 * the topic it arrived on (so it is consumed, acked and redelivered like any other), an
 * undeliverable response goes to the caller it was meant for. Under the `message-id`
 * dedupe strategy the first attempt's dedupe record is dropped, otherwise the requeued
 * copy would only be answered with the stored outcome.
 */
export async function requeueDlqRecord(core: InboxCore, inbound: InboundPort, id: string): Promise<RequeueResult> {
  const record = await core.dlq.get(id);
  if (!record) throw new RangeError(`requeue: no DLQ record ${id}`);
  if (record.size !== undefined) throw new RangeError(`requeue: DLQ record ${id} keeps only an excerpt of its ${record.size} bytes (over limits.maxBytes)`);
  const body = Buffer.from(record.rawBase64, 'base64');
  const key = record.envelope?.correlationId ?? record.id;
  if (record.kind === 'reply-undeliverable') {
    if (record.replyTo === undefined) throw new RangeError(`requeue: DLQ record ${id} does not say where its response was meant to go`);
    await publishReply(core, { replyTo: record.replyTo, body }, key);
    return { transport: record.transport, topic: record.replyTo };
  }
  const viaPort = record.transport === INBOUND_PORT_KIND;
  const transport = core.transports.get(record.transport);
  // A call a gateway could not carry (remote-failed) goes to that gateway again.
  const gateway = transport ? undefined : core.outbound.get(record.transport);
  if (!viaPort && !transport && !gateway) {
    throw new RpcError('EAGENTRPC_NO_TRANSPORT', `requeue: DLQ record ${id} came over ${record.transport}, which this node has not loaded`);
  }
  if (record.envelope && core.dedupe.strategy === 'message-id') await core.dedupe.release(record.envelope.messageId);
  if (gateway) {
    const decoded = decodeEnvelope(body, core.limits);
    if (!decoded.ok) throw new RangeError(`requeue: DLQ record ${id} holds no envelope the ${record.transport} gateway can carry (${decoded.reason})`);
    await gateway.send(record.coordinates.topic, decoded.envelope, { body, key });
    return { transport: record.transport, topic: record.coordinates.topic };
  }
  if (viaPort || !transport) {
    // It came through a front door, not a topic: it goes back the same way (nobody waits for its answer now).
    void inbound.deliver({ body, deliveryId: `requeue-${record.id}` }).catch((error: unknown) => core.logger.warn({ err: error, dlqId: id }, 'requeued message not delivered'));
    return { transport: record.transport, topic: record.coordinates.topic };
  }
  await transport.publish(record.coordinates.topic, { body, key });
  return { transport: record.transport, topic: record.coordinates.topic };
}
