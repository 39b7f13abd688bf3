/**
 * Envelope → bytes: the RFC 8785 (JCS) text of the envelope's schema fields, as UTF-8.
 *
 * Writing the canonical form on the wire is what lets a receiver check an HMAC over the
 * bytes it received instead of canonicalizing the decoded envelope again: `auth` sorts
 * first, so the signed text is the wire text with its first member taken out. The output
 * is deterministic, so bytes produced here decode and re-encode to the very same bytes.
 * The encoder trusts its input's shape (envelopes are built by this runtime from validated
 * parts); it only refuses what cannot be written as JSON the decoder accepts.
 */
import { canonicalWireBytes } from './canonical.js';
import type { AgentRpcEnvelope } from './schema.js';

function notJson(what: string, cause?: unknown): TypeError {
  return new TypeError(`encodeEnvelope: ${what}`, cause === undefined ? undefined : { cause });
}

export function encodeEnvelope(envelope: AgentRpcEnvelope): Uint8Array {
  const payloadType = typeof envelope.payload;
  if (payloadType === 'undefined' || payloadType === 'function' || payloadType === 'symbol') {
    throw notJson(`payload of type ${payloadType} has no JSON representation (use null for "no payload")`);
  }
  try {
    return canonicalWireBytes(envelope);
  } catch (error) {
    // BigInt values, cycles, non-finite numbers and unpaired surrogates land here.
    throw notJson(`envelope cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}
