import type { AgentRpcEnvelope } from '../envelope/index.js';
import { newMessageId } from '../envelope/index.js';
import type { WireError } from '../errors.js';
import type { DlqKind, DlqRecord } from '../dlq/record.js';
import type { Delivery, TransportKind } from '../transport.js';
import type { NodeCore } from './node-core.js';

export interface DeadLetterInput {
  readonly kind: DlqKind;
  readonly reason: string;
  readonly detail: string;
  readonly error?: WireError;
  /** Bytes to keep when they differ from the delivery's (an undeliverable response). */
  readonly body?: Uint8Array;
}

/**
 * Writes a DLQ record, counts it and logs it. Rejects if the sink cannot store it; the
 * inbox then nacks the delivery instead of acking, so the message is not lost.
 */
export async function deadLetter(
  core: NodeCore,
  delivery: Delivery,
  transport: TransportKind,
  input: DeadLetterInput,
  envelope: AgentRpcEnvelope | undefined,
): Promise<void> {
  const record: DlqRecord = {
    id: newMessageId(),
    at: core.clock.now(),
    agentId: core.agentId,
    kind: input.kind,
    reason: input.reason,
    detail: input.detail,
    rawBase64: Buffer.from(input.body ?? delivery.body).toString('base64'),
    transport,
    coordinates: delivery.coordinates,
    attempt: delivery.attempt,
  };
  if (input.error) record.error = input.error;
  if (envelope) {
    const { kind, messageId, correlationId, from, to, capability } = envelope;
    record.envelope = { kind, messageId, correlationId, from, to, capability };
  }
  await core.dlq.write(record);
  core.metrics.dlqRecorded?.(input.kind, input.reason);
  if (core.logger.isLevelEnabled('warn')) {
    core.logger.warn(
      {
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
      },
      `message sent to DLQ: ${input.kind} (${input.reason})`,
    );
  }
}
