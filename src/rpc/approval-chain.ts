import { attachAuth } from '../auth/index.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { toRpcError } from '../errors.js';
import { isPromise } from '../maybe-promise.js';
import { parseReplyTo, type TransportKind } from '../transport.js';
import type { ApprovalAnswer, ApprovalPrompt } from './approvals.js';
import { signerFor, type CallerCore, type InboxCore } from './node-core.js';
import type { PendingOutcome } from './pending-registry.js';
import { publishReply } from './responder.js';
import type { ApprovalRequestWire, ResponsePayload } from './response-payload.js';

/** Asks whoever can answer a prompt of the handler being run (see askApproval). */
export type ApprovalAsker = (prompt: ApprovalPrompt) => Promise<ApprovalAnswer>;

/** The capability named on approval answers: not a capability of any agent, only a label for logs and audit. */
export const APPROVAL_CAPABILITY = '$approval';
/** How long a question asked up the chain may wait when the request has no deadline. */
export const DEFAULT_APPROVAL_WAIT_MS = 5 * 60_000;

const declined = (reason: string): ApprovalAnswer => ({ approved: false, cancelled: true, reason });

/**
 * A handler's prompt: the node's own gate first (a session of the HTTP API answers it);
 * when the request is not a session's but a caller waits for its answer, the prompt travels
 * up the call chain as a progress response of the approval kind, and the answer comes back
 * to this instance's reply address like a call's response, bounded by the request's
 * deadline. Nobody able to answer → declined with the reason, never a hang.
 */
export async function askApproval(core: InboxCore, request: AgentRpcEnvelope, prompt: ApprovalPrompt, sendProgress: (payload: ResponsePayload) => Promise<void>): Promise<ApprovalAnswer> {
  const local = await core.approvals.request(request, prompt);
  if (local.reason !== 'no-session' || request.kind !== 'request' || request.replyTo === undefined) return local;
  const scheme = parseReplyTo(request.replyTo)?.scheme as TransportKind | undefined;
  const replyTo = scheme === undefined ? undefined : core.replyTo.get(scheme);
  if (replyTo === undefined) return local;
  const id = newMessageId();
  const deadline = request.deadline ?? core.clock.now() + DEFAULT_APPROVAL_WAIT_MS;
  const audit = (kind: string, fields: Record<string, unknown>): void =>
    core.audit.append({ kind, agentId: core.agentId, correlationId: request.correlationId, capability: request.capability, approvalId: id, ...fields });
  audit('approval_requested', { to: request.from, type: prompt.type, question: prompt.question });
  const answer = await new Promise<ApprovalAnswer>((resolve) => {
    const refused = core.registry.register({
      requestId: id,
      correlationId: request.correlationId,
      capability: APPROVAL_CAPABILITY,
      deadline,
      onProgress: undefined,
      onSettle: (outcome) => resolve(answerOf(outcome)),
    });
    if (refused) return resolve(declined(refused.code === 'EAGENTRPC_BUSY' ? 'busy' : 'closing'));
    const approval: ApprovalRequestWire = { id, question: prompt.question, replyTo, type: prompt.type };
    sendProgress({ approval, data: null, ok: true, progress: true }).catch((error: unknown) => core.registry.settle(id, { ok: false, error: toRpcError(error) }));
  });
  audit('approval_answered', { from: request.from, approved: answer.approved, ...(answer.reason ? { reason: answer.reason } : {}) });
  return answer;
}

function answerOf(outcome: PendingOutcome): ApprovalAnswer {
  if (!outcome.ok) return declined(outcome.error.code === 'EAGENTRPC_TIMEOUT' ? 'timeout' : outcome.error.code === 'EAGENTRPC_ABANDONED' ? 'closing' : 'undeliverable');
  const data = outcome.data as Partial<ApprovalAnswer> | null;
  if (typeof data !== 'object' || data === null || typeof data.approved !== 'boolean') return declined('malformed-answer');
  const answer: ApprovalAnswer = { approved: data.approved, cancelled: data.cancelled === true };
  return {
    ...answer,
    ...(typeof data.answer === 'string' ? { answer: data.answer } : {}),
    ...(typeof data.reason === 'string' ? { reason: data.reason } : {}),
  };
}

/**
 * The caller's side: a question from the target of a call is answered by `decide` (the
 * library caller's `onApproval`, or the handler this call was made from, which asks further
 * up), or declined when there is none; the answer goes back to the asking instance, signed
 * like any envelope to that peer.
 */
export function approvalResponder(core: CallerCore, target: string, tenantId: string | undefined, correlationId: string, decide: ApprovalAsker | undefined): (approval: ApprovalRequestWire) => void {
  return (approval) => {
    const audit = (fields: Record<string, unknown>): void =>
      core.audit.append({ kind: 'approval_relayed', agentId: core.agentId, correlationId, approvalId: approval.id, from: target, ...fields });
    const decided = decide ? decide({ type: approval.type, question: approval.question }).catch(() => declined('approver-failed')) : Promise.resolve(declined('no-approver'));
    void decided.then(async (answer) => {
      audit({ approved: answer.approved, by: decide ? 'caller' : 'none', ...(answer.reason ? { reason: answer.reason } : {}) });
      const envelope: AgentRpcEnvelope = {
        version: 1,
        kind: 'response',
        messageId: newMessageId(),
        correlationId,
        causedBy: approval.id,
        from: core.uri,
        to: target,
        capability: APPROVAL_CAPABILITY,
        payload: { data: { ...answer }, ok: true },
      };
      if (tenantId !== undefined) envelope.tenantId = tenantId;
      try {
        const signed = attachAuth(signerFor(core, target), envelope);
        const body = encodeEnvelope(isPromise(signed) ? await signed : signed);
        await publishReply(core, { replyTo: approval.replyTo, body }, correlationId);
      } catch (error) {
        // The asker's deadline declines the question; say why it never got an answer.
        core.logger.warn({ err: error, correlationId, approvalId: approval.id }, 'could not send an approval answer');
      }
    });
  };
}
