import { RpcError } from '../errors.js';
import { decodeUsage, USAGE_HEADER } from '../flow-usage.js';
import type { InboxCore } from './node-core.js';
import type { Receipt } from './receipt.js';
import { asResponsePayload } from './response-payload.js';

/**
 * A response settles the call waiting for it (progress and approval questions go to the
 * waiting call too). A second answer to a call already settled is acked as a duplicate;
 * one nobody waits for is dead-lettered.
 */
export function settleResponse(core: InboxCore, r: Receipt): void | Promise<void> {
  const envelope = r.request;
  const { registry } = core;
  const requestId = envelope.causedBy;
  let matched = false;
  if (requestId !== undefined) {
    const payload = asResponsePayload(envelope.payload);
    if (!payload) {
      const error = new RpcError('EAGENTRPC_INVALID_RESPONSE', `response from ${envelope.from} is not a result object`);
      matched = registry.settle(requestId, { ok: false, error }, true);
    } else if (payload.ok && payload.approval) matched = registry.approval(requestId, payload.approval);
    else if (payload.ok && payload.progress) matched = registry.progress(requestId, payload.data);
    else {
      const usageHeader = envelope.headers?.[USAGE_HEADER];
      const usage = usageHeader === undefined ? undefined : decodeUsage(usageHeader);
      const outcome = payload.ok ? { ok: true as const, data: payload.data } : { ok: false as const, error: RpcError.fromWire(payload.error) };
      matched = registry.settle(requestId, usage === undefined ? outcome : { ...outcome, usage }, true);
    }
  }
  if (matched) return r.delivery.ack();
  if (requestId !== undefined && registry.wasAnswered(requestId)) {
    // A second answer to a call already settled (a retried request answered twice).
    core.metrics.duplicateSkipped?.(envelope.capability);
    return r.delivery.ack();
  }
  core.metrics.unmatchedResponse?.(envelope.capability);
  const detail = `no pending call ${requestId ?? '(no causedBy)'}: late, duplicate or not ours`;
  return r.reject({ kind: 'unmatched-response', reason: 'no-pending-call', detail });
}
