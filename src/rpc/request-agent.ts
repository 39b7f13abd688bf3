import { positiveInteger } from '../check-integer.js';
import { attachAuth } from '../auth/attach.js';
import { agentIdOf, encodeEnvelope, newCorrelationId, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import { CALL_MODES, statusForError, type CallMode, type CallResult } from './call-result.js';
import { isPromise } from '../maybe-promise.js';
import { approvalResponder, type ApprovalAsker } from './approval-chain.js';
import { CANCEL_CAPABILITY } from './cancellations.js';
import { currentDispatch } from './flow-context.js';
import type { CallerCore } from './node-core.js';
import type { PendingOutcome } from './pending-registry.js';
import { normalizeAgentUri, type ResolvedPeer } from './peer-table.js';
import { requestPermissionKey } from './permissions.js';
import { runSyncCall, type RetryOptions } from './sync-call.js';
import { parseTraceparent, TRACEPARENT_HEADER } from './trace-context.js';
import { FLOW_HEADER } from '../guard/flow-state.js';
import { encodeUsage, flowSpentAt, FLOW_USAGE_HEADER, recordUsage } from './flow-usage.js';
import { guardError } from '../guard/runaway-guard.js';
import { reportGuardRejection, reportIdleHops } from './guard-report.js';
import type { FlowCallIdentity } from '../observability/flow-observer.js';

export interface RequestAgentOptions<I = unknown> {
  /** `agent://<id>` or the bare id. */
  readonly to: string;
  readonly capability: string;
  readonly payload: I;
  /** Default 30,000; clamped to [1, 600,000]. Inside a handler, never past the parent's deadline. */
  readonly timeoutMs?: number;
  /** Default `sync`. */
  readonly mode?: CallMode;
  readonly headers?: Record<string, string>;
  /** Sync mode: called with each progress response before the final one. */
  readonly onProgress?: (data: unknown) => void;
  /**
   * Answers questions the target (or an agent it calls) asks before acting — a model
   * agent's command approval. Inside a handler the default asks on up the chain (the
   * handler's own caller or session); elsewhere, without it, every question is declined.
   */
  readonly onApproval?: ApprovalAsker;
  /** Aborting stops waiting: the call settles `abandoned` (the request may still run remotely). */
  readonly signal?: AbortSignal;
  /** Sync mode: publish the same envelope again when an attempt is lost (see RetryOptions). */
  readonly retry?: RetryOptions;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 600_000;

/**
 * The caller's path: permission → flow context → peer table → envelope → sign → pending
 * registry → publish. Resolves with a CallResult for every outcome of the call; throws
 * only for caller mistakes (TypeError / RangeError naming the option).
 *
 * `parent`: the request being handled, which the call joins (a handler's `ctx` passes
 * it); otherwise the one of the handler this runs in, when handlers run in a flow context.
 */
export async function requestAgent<O = unknown>(
  core: CallerCore,
  options: RequestAgentOptions,
  parent: AgentRpcEnvelope | undefined = currentDispatch()?.request,
  parentApprovals: ApprovalAsker | undefined = currentDispatch()?.askApproval,
): Promise<CallResult<O>> {
  const { to, capability, mode, timeoutMs } = checkOptions(options);
  const started = performance.now();
  const correlationId = parent?.correlationId ?? newCorrelationId();
  const explicitTrace = options.headers?.[TRACEPARENT_HEADER];
  // The call's span covers it from the permission check to its outcome (refusals included).
  const span = core.tracing.startSend(parent, explicitTrace === undefined ? undefined : parseTraceparent(explicitTrace));
  const resultOf = (outcome: PendingOutcome, messageId: string | undefined): CallResult<O> => {
    const latencyMs = performance.now() - started;
    const result: CallResult<O> = outcome.ok
      ? { status: 'ok', response: outcome.data as O, correlationId, latencyMs }
      : { status: statusForError(outcome.error), error: outcome.error, correlationId, latencyMs };
    if (messageId !== undefined) result.messageId = messageId;
    if (outcome.usage !== undefined) {
      result.usage = outcome.usage;
      // Rolled up: the handler this call was made from answers with it included.
      if (parent) recordUsage(parent, outcome.usage);
    }
    return result;
  };
  /** The call has ended: its outcome is counted once. */
  const finish = (outcome: PendingOutcome, messageId: string | undefined): CallResult<O> => {
    const result = resultOf(outcome, messageId);
    core.metrics.callCompleted?.(capability, result.status, result.latencyMs);
    core.tracing.endSend(span, result.status, result.error);
    if (core.flows.callEnded) core.flows.callEnded(built ?? refusedCall(core.uri, to, capability, correlationId, parent), result);
    return result;
  };
  // The envelope once built: what the flow observer hears the call as.
  let built: AgentRpcEnvelope | undefined;
  const fail = (error: unknown, messageId?: string): CallResult<O> => finish({ ok: false, error: toRpcError(error) }, messageId);

  if (!core.permissions(requestPermissionKey(to, capability))) {
    core.tracing.permissionDenied(span, to, capability);
    return fail(new RpcError('EAGENTRPC_PERMISSION_DENIED', `${core.uri} may not call ${to}/${capability}`, { details: { to, capability } }));
  }
  let peer: ReturnType<typeof core.peers.resolve>;
  try {
    peer = core.peers.resolve(to, core.transports, core.tenantId);
  } catch (error) {
    return fail(error);
  }

  if (span.isRecording()) core.tracing.describeSend(span, peer.transport.kind, peer.topic, { capability, from: core.uri, to, correlationId }, peer.transport.brokerEndpoint);
  const violation = core.peerSchemas.get(to)?.check(capability, 'input', options.payload);
  if (violation) return fail(violation);
  const flow = parent ? core.guard.childCall(parent, to, core.clock.now()) : core.guard.startFlow(to, core.clock.now());
  if ('violation' in flow) {
    reportGuardRejection(core, flow.violation, flow.from, flow.to, correlationId);
    core.tracing.guardRefused(span, flow.violation.rule, flow.from, flow.to);
    return fail(guardError(flow.violation, flow.from, flow.to));
  }
  const spent = parent ? flowSpentAt(parent) : undefined;
  const overBudget = core.guard.checkSpent(spent);
  if (overBudget) {
    reportGuardRejection(core, overBudget, core.agentId, agentIdOf(to), correlationId);
    core.tracing.guardRefused(span, overBudget.rule, core.agentId, agentIdOf(to));
    return fail(guardError(overBudget, core.agentId, agentIdOf(to)));
  }
  if (parent) core.metrics.agentCall?.(flow.depth);
  if (flow.idleHops !== undefined) reportIdleHops(core, flow.idleHops, core.agentId, agentIdOf(to), correlationId);

  const messageId = newMessageId();
  const deadline = Math.min(core.clock.now() + timeoutMs, parent?.deadline ?? Number.POSITIVE_INFINITY);
  const envelope: AgentRpcEnvelope = {
    version: 1,
    kind: mode === 'fire-and-forget' ? 'event' : 'request',
    messageId,
    correlationId,
    from: core.uri,
    to,
    capability,
    deadline,
    payload: options.payload,
  };
  if (parent) envelope.causedBy = parent.messageId;
  if (mode !== 'fire-and-forget') envelope.replyTo = core.replyTo.get(peer.transport.kind);
  if (peer.tenantId !== undefined) envelope.tenantId = peer.tenantId;
  // The caller's own traceparent wins (it runs inside a traced service); else continue the
  // trace of the request being handled, else start one.
  const inherited = options.headers?.[TRACEPARENT_HEADER] ?? parent?.headers?.[TRACEPARENT_HEADER];
  core.tracing.sending(span, envelope);
  // The call span's id when it records, so the receiver's span is its child.
  const traceparent = core.tracing.outgoingTraceparent(span, inherited);
  // Without headers of the caller's own, written in RFC 8785 order for the encoder.
  envelope.headers =
    options.headers === undefined
      ? { [FLOW_HEADER]: flow.header, [TRACEPARENT_HEADER]: traceparent }
      : { ...options.headers, [TRACEPARENT_HEADER]: traceparent, [FLOW_HEADER]: flow.header };
  if (spent !== undefined) envelope.headers[FLOW_USAGE_HEADER] = encodeUsage(spent);
  const signer = peer.auth ?? core.auth;
  built = envelope;
  core.flows.callStarted?.(envelope);
  const send = (signed: AgentRpcEnvelope): Promise<void> =>
    peer.transport.publish(peer.topic, { body: encodeEnvelope(signed), key: correlationId, messageId, expiresAt: signed.deadline });
  // Signed per attempt: a retry carries a fresh signing time and token, so the receiver
  // sees a new signature (not a replay) and its dedupe answers the repeated messageId.
  const publish = async (): Promise<void> => {
    const signed = attachAuth(signer, envelope);
    return send(isPromise(signed) ? await signed : signed);
  };

  if (mode === 'fire-and-forget') {
    return publish().then(() => finish({ ok: true, data: undefined }, messageId), (error: unknown) => fail(error, messageId));
  }
  const onApproval = approvalResponder(core, to, peer.tenantId, correlationId, options.onApproval ?? parentApprovals);
  if (mode === 'async') {
    const refused = core.registry.register({
      onApproval,
      requestId: messageId,
      correlationId,
      capability,
      transport: peer.transport.kind,
      deadline,
      onProgress: (data) => core.bus.emit('agent.rpc.progress', { requestId: messageId, correlationId, capability, data }),
      onSettle: (outcome) =>
        core.bus.emit('agent.rpc.response', { ...finish(outcome, messageId), requestId: messageId, capability, to }),
    });
    if (refused) return fail(refused);
    try {
      await publish();
    } catch (error) {
      core.registry.forget(messageId);
      return fail(error, messageId);
    }
    // Accepted, not ended: the outcome is counted when it arrives on the bus.
    return resultOf({ ok: true, data: undefined }, messageId);
  }
  const { outcome, sent } = await runSyncCall(core, {
    requestId: messageId,
    correlationId,
    capability,
    transport: peer.transport.kind,
    deadline,
    publish,
    // A request/response transport cancels the remote work itself; over a broker the target hears `$cancel`.
    abandon: peer.transport.abandon ? () => peer.transport.abandon?.(messageId) : () => sendCancel(core, peer, envelope),
    onProgress: options.onProgress,
    onApproval,
    signal: options.signal,
    retry: options.retry,
  });
  return finish(outcome, sent ? messageId : undefined);
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
    await peer.transport.publish(peer.topic, { body: encodeEnvelope(isPromise(signed) ? await signed : signed), key: request.correlationId, messageId: cancel.messageId });
  };
  publish().catch((error: unknown) => core.logger.debug({ err: error, requestId: request.messageId }, 'could not send $cancel'));
}

/** A call refused before its envelope was built, as the flow observer hears it. */
function refusedCall(from: string, to: string, capability: string, correlationId: string, parent: AgentRpcEnvelope | undefined): FlowCallIdentity {
  return { correlationId, causedBy: parent?.messageId, from, to, capability };
}

interface CheckedOptions {
  to: string;
  capability: string;
  mode: CallMode;
  timeoutMs: number;
}

function checkOptions(options: RequestAgentOptions): CheckedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('requestAgent: options must be an object');
  if (typeof options.to !== 'string' || options.to.length === 0) throw new TypeError('requestAgent: to must be an agent id or agent:// URI');
  if (typeof options.capability !== 'string' || options.capability.length === 0) {
    throw new TypeError('requestAgent: capability must be a non-empty string');
  }
  const mode = options.mode ?? 'sync';
  if (!CALL_MODES.includes(mode)) throw new TypeError(`requestAgent: mode must be one of ${CALL_MODES.join(', ')}`);
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== 'number' || Number.isNaN(timeout)) throw new TypeError('requestAgent: timeoutMs must be a number');
  if (options.retry !== undefined) {
    if (mode !== 'sync') throw new TypeError('requestAgent: retry applies to sync calls only');
    const { attempts, attemptTimeoutMs, backoffMs } = options.retry;
    positiveInteger(attempts, 'requestAgent: retry.attempts');
    for (const [field, value] of [['attemptTimeoutMs', attemptTimeoutMs], ['backoffMs', backoffMs]] as const) {
      if (value !== undefined && (!Number.isFinite(value) || value < 0)) throw new RangeError(`requestAgent: retry.${field} must be a non-negative number`);
    }
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError('requestAgent: onProgress must be a function');
  }
  if (options.onApproval !== undefined && typeof options.onApproval !== 'function') {
    throw new TypeError('requestAgent: onApproval must be a function');
  }
  const to = normalizeAgentUri(options.to);
  return { to, capability: options.capability, mode, timeoutMs: Math.min(MAX_TIMEOUT_MS, Math.max(1, Math.floor(timeout))) };
}
