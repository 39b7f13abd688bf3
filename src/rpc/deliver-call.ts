import { attachAuth } from '../auth/index.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { toRpcError } from '../errors.js';
import { isPromise } from '../maybe-promise.js';
import { approvalResponder } from './approval-chain.js';
import type { CallResult } from '../call-result.js';
import { CANCEL_CAPABILITY } from './cancellations.js';
import type { CallerCore } from './node-core.js';
import type { CallState } from './outgoing-call.js';
import type { ResolvedPeer } from './peer-table.js';
import { callResult } from './send-stages.js';
import { runSyncCall } from './sync-call.js';

/**
 * The end of the send path, one way per mode: sign, then
 * - fire-and-forget: publish; the call ends when the broker accepted it;
 * - async: register, publish (the caller is told `accepted`), end when the answer comes;
 * - sync: register, publish (again, on a lost attempt, while retries allow), end with the answer.
 * Signed per attempt: a retry carries a fresh signing time and token, so the receiver sees a
 * new signature (not a replay) and its dedupe answers the repeated messageId.
 */
export function deliverCall(core: CallerCore, call: CallState): Promise<CallResult> {
  const envelope = call.envelope!;
  const peer = call.peer!;
  const { messageId } = envelope;
  const signer = peer.auth ?? core.auth;
  const publish = (): Promise<void> => {
    try {
      const signed = attachAuth(signer, envelope);
      return isPromise(signed) ? signed.then((s) => send(peer, call, s)) : send(peer, call, signed);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  if (call.mode === 'fire-and-forget') {
    return publish().then(
      () => callResult(call, { ok: true, data: undefined }, messageId),
      (error: unknown) => callResult(call, { ok: false, error: toRpcError(error) }, messageId),
    );
  }
  const onApproval = approvalResponder(core, call.to, peer.tenantId, call.correlationId, call.options.onApproval ?? call.parentApprovals);
  if (call.mode === 'async') return deliverAsync(core, call, publish, onApproval);
  return runSyncCall(core, {
    requestId: messageId,
    correlationId: call.correlationId,
    capability: call.capability,
    transport: peer.outbound.kind,
    deadline: envelope.deadline!,
    publish,
    // A gateway cancels the remote work itself; over a transport the target hears `$cancel`.
    abandon: peer.outbound.abandon ? () => peer.outbound.abandon?.(messageId) : () => sendCancel(core, peer, envelope),
    onProgress: call.options.onProgress,
    onApproval,
    signal: call.options.signal,
    retry: call.options.retry,
  }).then(({ outcome, sent }) => callResult(call, outcome, sent ? messageId : undefined));
}

function send(peer: ResolvedPeer, call: CallState, signed: AgentRpcEnvelope): Promise<void> {
  return peer.outbound.send(peer.topic, signed, { body: encodeEnvelope(signed), key: call.correlationId, messageId: signed.messageId, expiresAt: signed.deadline });
}

function deliverAsync(core: CallerCore, call: CallState, publish: () => Promise<void>, onApproval: ReturnType<typeof approvalResponder>): Promise<CallResult> {
  const envelope = call.envelope!;
  const { messageId } = envelope;
  return new Promise((resolve) => {
    let published = false;
    const accept = (): void => {
      if (published) return;
      published = true;
      call.accepted?.();
    };
    const refused = core.registry.register({
      onApproval,
      requestId: messageId,
      correlationId: call.correlationId,
      capability: call.capability,
      transport: call.peer!.outbound.kind,
      deadline: envelope.deadline!,
      onProgress: (data) => core.bus.emit('agent.rpc.progress', { requestId: messageId, correlationId: call.correlationId, capability: call.capability, data }),
      // An answer can come before the transport's publish promise settles: it was published then.
      onSettle: (outcome) => {
        accept();
        resolve(callResult(call, outcome, messageId));
      },
    });
    if (refused) return resolve(callResult(call, { ok: false, error: refused }, undefined));
    publish().then(accept, (error: unknown) => {
      core.registry.forget(messageId);
      resolve(callResult(call, { ok: false, error: toRpcError(error) }, messageId));
    });
  });
}

/** Tells the target the caller stopped waiting, so its handler's signal aborts. Best effort: a lost cancel leaves the deadline to end it. */
function sendCancel(core: CallerCore, peer: ResolvedPeer, request: AgentRpcEnvelope): void {
  const cancel: AgentRpcEnvelope = {
    version: 1,
    kind: 'event',
    messageId: newMessageId(),
    correlationId: request.correlationId,
    from: core.uri,
    to: request.to,
    capability: CANCEL_CAPABILITY,
    payload: { requestId: request.messageId },
  };
  if (request.tenantId !== undefined) cancel.tenantId = request.tenantId;
  const publish = async (): Promise<void> => {
    const signed = attachAuth(peer.auth ?? core.auth, cancel);
    const ready = isPromise(signed) ? await signed : signed;
    await peer.outbound.send(peer.topic, ready, { body: encodeEnvelope(ready), key: request.correlationId, messageId: cancel.messageId });
  };
  publish().catch((error: unknown) => core.logger.debug({ err: error, requestId: request.messageId }, 'could not send $cancel'));
}
