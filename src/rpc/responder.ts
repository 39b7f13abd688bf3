import { attachAuth } from '../auth/index.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { StoredReply } from '../idempotency/index.js';
import { parseReplyTo, type TransportKind } from '../transport.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import { signerFor, type NodeLinks, type SignerCore } from './node-core.js';
import type { ResponsePayload } from './response-payload.js';
import { encodeUsage, USAGE_HEADER, usageCausedBy } from '../flow-usage.js';

/**
 * Builds (and signs) the response envelope for a request. Undefined when the request
 * wants no reply. Kept apart from publishing so a reply that could not be published can
 * be stored and sent again when the request is redelivered, without re-running the handler.
 */
export function buildResponse(core: SignerCore, request: AgentRpcEnvelope, payload: ResponsePayload): MaybePromise<StoredReply | undefined> {
  if (request.replyTo === undefined) return undefined;
  const response: AgentRpcEnvelope = {
    version: 1,
    kind: 'response',
    messageId: newMessageId(),
    correlationId: request.correlationId,
    causedBy: request.messageId,
    from: core.uri,
    to: request.from,
    capability: request.capability,
    payload,
  };
  if (request.tenantId !== undefined) response.tenantId = request.tenantId;
  // Rolled up along the flow: each answer carries what its request caused, nested calls included.
  const usage = usageCausedBy(request);
  if (usage !== undefined) response.headers = { [USAGE_HEADER]: encodeUsage(usage) };
  const replyTo = request.replyTo;
  const signed = attachAuth(signerFor(core, request.from), response);
  return isPromise(signed) ? signed.then((s) => ({ replyTo, body: encodeEnvelope(s) })) : { replyTo, body: encodeEnvelope(signed) };
}

/** Publishes a reply to its `replyTo`. Rejects with RpcError when no loaded transport reaches it. */
export function publishReply(core: Pick<NodeLinks, 'transports'>, reply: StoredReply, correlationId: string): Promise<void> {
  const parsed = parseOnce(reply.replyTo);
  const transport = parsed ? core.transports.get(parsed.scheme as TransportKind) : undefined;
  if (!parsed || !transport) {
    return Promise.reject(new RpcError('EAGENTRPC_NO_TRANSPORT', `no loaded transport can reach replyTo ${reply.replyTo}`, { details: { replyTo: reply.replyTo } }));
  }
  return transport.publish(parsed.topic, { body: reply.body, key: correlationId, ephemeral: true });
}

// The replyTo addresses a node answers are few (one per calling instance and transport):
// parsed once each, not once per reply.
const parsedReplyTo = new Map<string, ReturnType<typeof parseReplyTo>>();

function parseOnce(replyTo: string): ReturnType<typeof parseReplyTo> {
  let parsed = parsedReplyTo.get(replyTo);
  if (parsed === undefined) {
    parsed = parseReplyTo(replyTo);
    if (parsedReplyTo.size >= 10_000) parsedReplyTo.clear();
    parsedReplyTo.set(replyTo, parsed);
  }
  return parsed;
}
