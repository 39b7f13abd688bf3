import { newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, type WireError } from '../errors.js';
import { DLQ_EXCERPT_BYTES, type DlqKind, type DlqRecord } from '../dlq/index.js';
import type { Delivery, TransportKind } from '../transport.js';
import type { InboxCore } from './node-core.js';
import { publishDlqCopy } from './dlq-topic-copy.js';

export interface DeadLetterInput {
  readonly kind: DlqKind;
  readonly reason: string;
  readonly detail: string;
  readonly error?: WireError;
  /** Bytes to keep when they differ from the delivery's (an undeliverable response). */
  readonly body?: Uint8Array;
  /** Where `body` was meant to go, when it is an undeliverable response. */
  readonly replyTo?: string;
}

/**
 * Writes a DLQ record to the local sink, counts it, logs it and publishes a copy to the
 * agent's DLQ topic on the transport it came from (see publishDlqCopy). Rejects if the
 * local sink cannot store it; the inbox then nacks the delivery instead of acking, so the
 * message is not lost.
 */
export async function deadLetter(
  core: InboxCore,
  delivery: Delivery,
  transport: TransportKind,
  input: DeadLetterInput,
  envelope: AgentRpcEnvelope | undefined,
): Promise<void> {
  const body = input.body ?? delivery.body;
  // Bytes past the node's limit are not kept whole: a record stays small whatever arrived.
  const excerpt = body.byteLength > core.limits.maxBytes;
  const record: DlqRecord = {
    id: newMessageId(),
    at: core.clock.now(),
    agentId: core.agentId,
    kind: input.kind,
    reason: input.reason,
    detail: input.detail,
    rawBase64: Buffer.from(excerpt ? body.subarray(0, DLQ_EXCERPT_BYTES) : body).toString('base64'),
    transport,
    coordinates: delivery.coordinates,
    attempt: delivery.attempt,
  };
  if (excerpt) record.size = body.byteLength;
  if (input.error) record.error = input.error;
  if (input.replyTo !== undefined) record.replyTo = input.replyTo;
  if (envelope) {
    const { kind, messageId, correlationId, from, to, capability } = envelope;
    record.envelope = { kind, messageId, correlationId, from, to, capability };
  }
  try {
    await core.dlq.write(record);
  } catch (cause) {
    throw new RpcError('EAGENTRPC_DLQ_WRITE_FAILED', `the DLQ could not store a ${input.kind} record: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      details: { kind: input.kind, reason: input.reason, size: body.byteLength, excerptBase64: Buffer.from(body.subarray(0, DLQ_EXCERPT_BYTES)).toString('base64') },
    });
  }
  core.metrics.dlqRecorded?.(input.kind, input.reason);
  if (envelope) core.flows.deadLettered?.(envelope, input.kind, input.reason);
  await publishDlqCopy(core, core.transports.get(transport), record);
  if (core.logger.isLevelEnabled('warn')) {
    core.warnings.warn(
      `dlq:${input.kind}:${input.reason}`,
      { kind: input.kind, reason: input.reason },
      () => ({
        dlqId: record.id,
        kind: input.kind,
        reason: input.reason,
        detail: input.detail,
        topic: delivery.coordinates.topic,
        messageId: envelope?.messageId,
        correlationId: envelope?.correlationId,
        capability: envelope?.capability,
        from: envelope?.from,
        to: envelope?.to,
      }),
      `message sent to DLQ: ${input.kind} (${input.reason})`,
    );
  }
}
