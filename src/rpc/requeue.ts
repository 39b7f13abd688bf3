import { RpcError } from '../errors.js';
import type { TransportKind } from '../transport.js';
import type { NodeCore } from './node-core.js';
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
export async function requeueDlqRecord(core: NodeCore, id: string): Promise<RequeueResult> {
  const record = await core.dlq.get(id);
  if (!record) throw new RangeError(`requeue: no DLQ record ${id}`);
  const body = Buffer.from(record.rawBase64, 'base64');
  const key = record.envelope?.correlationId ?? record.id;
  if (record.kind === 'reply-undeliverable') {
    if (record.replyTo === undefined) throw new RangeError(`requeue: DLQ record ${id} does not say where its response was meant to go`);
    await publishReply(core, { replyTo: record.replyTo, body }, key);
    return { transport: record.transport, topic: record.replyTo };
  }
  const transport = core.transports.get(record.transport);
  if (!transport) {
    throw new RpcError('EAGENTRPC_NO_TRANSPORT', `requeue: DLQ record ${id} came over ${record.transport}, which this node has not loaded`);
  }
  if (record.envelope && core.dedupe.strategy === 'message-id') await core.dedupe.release(record.envelope.messageId);
  await transport.publish(record.coordinates.topic, { body, key });
  return { transport: record.transport, topic: record.coordinates.topic };
}
