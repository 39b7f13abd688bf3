import { positiveInteger } from '../check-integer.js';
import { newCorrelationId, type AgentRpcEnvelope } from '../envelope/index.js';
import { CALL_MODES, type CallMode, type CallResult } from '../call-result.js';
import type { ApprovalAsker } from './approval-chain.js';
import { currentDispatch } from './flow-context.js';
import type { CallerCore } from './node-core.js';
import { CallState } from './outgoing-call.js';
import { normalizeAgentUri } from './peer-table.js';
import type { RetryOptions } from './sync-call.js';

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
 * The caller's path: the node's send pipeline (its middleware around the send stages and
 * the delivery of send-stages.ts and deliver-call.ts). Resolves with a CallResult for every
 * outcome of the call; throws only for caller mistakes (TypeError / RangeError naming the
 * option). An async call resolves once published (`accepted`); its outcome arrives on the
 * node's bus as `agent.rpc.response`.
 *
 * `parent`: the request being handled, which the call joins (a handler's `ctx` passes
 * it); otherwise the one of the handler this runs in, when handlers run in a flow context.
 */
export function requestAgent<O = unknown>(
  core: CallerCore,
  options: RequestAgentOptions,
  parent: AgentRpcEnvelope | undefined = currentDispatch()?.request,
  parentApprovals: ApprovalAsker | undefined = currentDispatch()?.askApproval,
): Promise<CallResult<O>> {
  let call: CallState;
  try {
    const { to, capability, mode, timeoutMs } = checkOptions(options);
    call = new CallState(to, capability, mode, timeoutMs, parent?.correlationId ?? newCorrelationId(), options, parent, parentApprovals);
  } catch (error) {
    return Promise.reject(error);
  }
  if (call.mode !== 'async') return core.outgoing.send(call) as Promise<CallResult<O>>;
  return new Promise((resolve) => {
    let accepted = false;
    call.accepted = () => {
      accepted = true;
      // Accepted, not ended: the outcome is counted when it arrives on the bus.
      const result: CallResult<O> = { status: 'ok', response: undefined as O, correlationId: call.correlationId, latencyMs: performance.now() - call.started };
      result.messageId = call.envelope!.messageId;
      resolve(result);
    };
    void core.outgoing.send(call).then((result) => {
      if (!accepted) return resolve(result as CallResult<O>);
      core.bus.emit('agent.rpc.response', { ...result, requestId: call.envelope!.messageId, capability: call.capability, to: call.to });
    });
  });
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
