/** AgentRpcEnvelope v1: schema, strict decoding, encoding, canonical form for signing, ids. */
export {
  ENVELOPE_VERSION,
  ENVELOPE_KINDS,
  ENVELOPE_FIELDS,
  URI_SCHEME_RE,
  envelopeSchema,
  envelopeAuthSchema,
  agentUri,
  agentIdOf,
  isAgentId,
  AGENT_URI_RE,
  CAPABILITY_RE,
  MESSAGE_ID_RE,
} from './schema.js';
export type {
  AgentRpcEnvelope,
  EnvelopeKind,
  EnvelopeAuth,
  EnvelopeAuthInternal,
  EnvelopeAuthHmac,
  EnvelopeAuthOidc,
  EnvelopeAuthOauth2Client,
  EnvelopeField,
} from './schema.js';
export {
  DECODE_FAILURE_REASONS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  decodeEnvelope,
  validateEnvelope,
} from './decode.js';
export type { DecodeFailureReason, DecodeResult, DecodeLimits } from './decode.js';
export { encodeEnvelope } from './encode.js';
export { peekEnvelope, type PeekedEnvelope } from './peek.js';
export { canonicalJson, canonicalizeForSigning, canonicalSigningBytes } from './canonical.js';
export { newMessageId, newCorrelationId, isUuid, uuidV7Timestamp, randomHex } from './ids.js';
export { scanJson } from './json-scan.js';
