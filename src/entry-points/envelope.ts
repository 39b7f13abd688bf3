/**
 * `agent-rpc/envelope`: the wire, for code that reads or writes envelopes itself (a client
 * in another runtime's image, a bridge, a test): the v1 envelope's strict decoder and its
 * encoder, the canonical form that signatures cover, ids, and the headers a call carries.
 */
export {
  ENVELOPE_VERSION,
  DECODE_FAILURE_REASONS,
  agentUri,
  agentIdOf,
  canonicalizeForSigning,
  decodeEnvelope,
  encodeEnvelope,
  newCorrelationId,
  newMessageId,
  type AgentRpcEnvelope,
  type DecodeFailureReason,
  type DecodeResult,
  type EnvelopeAuth,
  type EnvelopeKind,
} from '../envelope/index.js';
export { TRACEPARENT_HEADER, parseTraceparent, childTraceparent } from '../trace-context.js';
export { USAGE_HEADER, FLOW_USAGE_HEADER } from '../flow-usage.js';
export { FLOW_HEADER } from '../guard/index.js';
export { SIGNED_AT_HEADER } from '../auth/hmac-provider.js';
