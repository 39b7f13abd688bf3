import { z } from 'zod';
import type { Logger } from '../logger.js';
import { LogThrottle } from '../observability/index.js';
import type { RpcTransport, Subscription } from '../transport.js';
import { CALLER_STATUSES, HANDLER_STATUSES, type FlowCall } from './flow-record.js';
import type { FlowRecordStore } from './flow-record-store.js';

/** The fleet's flows topic (one per fleet, fanned out to every viewer). */
export const DEFAULT_FLOWS_TOPIC = 'agents.flows';

const usageSchema = z.strictObject({ inputTokens: z.number().min(0), outputTokens: z.number().min(0), costUsd: z.number().min(0) });
const idSchema = z.string().min(1).max(200);
const codeSchema = z.string().min(1).max(100);

/** A flow record as it travels: version 1, one call, no payloads. */
const wireSchema = z.strictObject({
  v: z.literal(1),
  call: z.strictObject({
    id: idSchema,
    correlationId: idSchema,
    causedBy: idSchema.optional(),
    from: idSchema,
    to: idSchema,
    capability: idSchema,
    kind: z.literal('event').optional(),
    startedAt: z.number().min(0),
    call: z
      .strictObject({ status: z.enum(CALLER_STATUSES), latencyMs: z.number().min(0).optional(), errorCode: codeSchema.optional(), usage: usageSchema.optional() })
      .optional(),
    handler: z
      .strictObject({
        status: z.enum(HANDLER_STATUSES),
        startedAt: z.number().min(0).optional(),
        durationMs: z.number().min(0).optional(),
        errorCode: codeSchema.optional(),
        dlq: codeSchema.optional(),
        usage: usageSchema.optional(),
      })
      .optional(),
  }),
});

/** Largest record accepted from the topic; a compact record is a few hundred bytes. */
const MAX_RECORD_BYTES = 4096;

export function encodeFlowRecord(call: FlowCall): Uint8Array {
  return Buffer.from(JSON.stringify({ v: 1, call }));
}

/** Undefined for anything that is not a version-1 flow record. */
export function decodeFlowRecord(body: Uint8Array): FlowCall | undefined {
  if (body.byteLength > MAX_RECORD_BYTES) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
  const result = wireSchema.safeParse(parsed);
  return result.success ? (result.data.call as FlowCall) : undefined;
}

/**
 * Publishes each record to the flows topic, best effort: a record that cannot be sent is
 * counted in a throttled warning, never retried, and never holds up the call it describes.
 */
export function flowsPublisher(transport: RpcTransport, topic: string, logger: Logger): (call: FlowCall) => void {
  const throttle = new LogThrottle(10_000);
  return (call) => {
    transport.publish(topic, { body: encodeFlowRecord(call), key: call.correlationId, ephemeral: true }).catch((error: unknown) => {
      const suppressed = throttle.due();
      if (suppressed !== undefined) logger.warn({ err: error, topic, count: suppressed }, 'could not publish a flow record');
    });
  };
}

/** Merges every record published to the flows topic into `store` (a `flows.view` daemon). */
export function viewFlows(transport: RpcTransport, topic: string, store: FlowRecordStore, logger: Logger): Promise<Subscription> {
  const throttle = new LogThrottle(10_000);
  return transport.subscribe(
    topic,
    (delivery) => {
      const call = decodeFlowRecord(delivery.body);
      if (call) store.put(call);
      else {
        const suppressed = throttle.due();
        if (suppressed !== undefined) logger.warn({ topic, bytes: delivery.body.byteLength, count: suppressed }, 'ignored a message on the flows topic that is not a flow record');
      }
      delivery.ack();
    },
    { ephemeral: true },
  );
}
