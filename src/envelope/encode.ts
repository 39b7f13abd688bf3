/**
 * Envelope → bytes. The output is deterministic: top-level fields in the fixed schema
 * order, absent optional fields omitted, payload and headers serialized as given, so bytes
 * produced here decode and re-encode to the very same bytes (the recorded fixtures rely on
 * it). The encoder trusts its input's shape (envelopes are built by this runtime from
 * validated parts); it only refuses what cannot be written as JSON the decoder accepts.
 */
import { hasLoneSurrogateEscape } from './json-output.js';
import type { AgentRpcEnvelope } from './schema.js';

function notJson(what: string, cause?: unknown): TypeError {
  return new TypeError(`encodeEnvelope: ${what}`, cause === undefined ? undefined : { cause });
}

export function encodeEnvelope(envelope: AgentRpcEnvelope): Uint8Array {
  const payload = envelope.payload;
  const payloadType = typeof payload;
  if (payloadType === 'undefined' || payloadType === 'function' || payloadType === 'symbol') {
    throw notJson(`payload of type ${payloadType} has no JSON representation (use null for "no payload")`);
  }
  // Built in schema order; JSON.stringify keeps insertion order for non-numeric keys.
  const out: Record<string, unknown> = {
    version: envelope.version,
    kind: envelope.kind,
    messageId: envelope.messageId,
    correlationId: envelope.correlationId,
  };
  if (envelope.causedBy !== undefined) out.causedBy = envelope.causedBy;
  out.from = envelope.from;
  out.to = envelope.to;
  out.capability = envelope.capability;
  if (envelope.replyTo !== undefined) out.replyTo = envelope.replyTo;
  if (envelope.deadline !== undefined) out.deadline = envelope.deadline;
  if (envelope.tenantId !== undefined) out.tenantId = envelope.tenantId;
  if (envelope.headers !== undefined) out.headers = envelope.headers;
  out.payload = payload;
  if (envelope.auth !== undefined) out.auth = envelope.auth;

  let json: string;
  try {
    json = JSON.stringify(out);
  } catch (error) {
    // BigInt values and cycles land here.
    throw notJson(`envelope cannot be serialized as JSON: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  if (hasLoneSurrogateEscape(json)) throw notJson('a string contains an unpaired UTF-16 surrogate');
  return Buffer.from(json, 'utf8');
}
