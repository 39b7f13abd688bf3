import { decodeEnvelope, DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, type DecodeLimits } from './decode.js';
import type { AgentRpcEnvelope } from './schema.js';

export interface PeekedEnvelope {
  readonly envelope: AgentRpcEnvelope;
  /** The limits it was decoded within, so a receiver with limits at least as wide need not decode it again. */
  readonly limits: Required<DecodeLimits>;
}

/**
 * The one way code outside the inbox looks into an envelope (to route it, bound it by its
 * deadline): the strict decoder, once per message. Undefined for anything that is not a
 * valid v1 envelope. It decides nothing about trust: the inbox still verifies it.
 */
export function peekEnvelope(body: Uint8Array | string, limits: DecodeLimits = {}): PeekedEnvelope | undefined {
  const used = { maxBytes: limits.maxBytes ?? DEFAULT_MAX_BYTES, maxDepth: limits.maxDepth ?? DEFAULT_MAX_DEPTH };
  const decoded = decodeEnvelope(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, used);
  return decoded.ok ? { envelope: decoded.envelope, limits: used } : undefined;
}
