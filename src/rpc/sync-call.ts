import { backoffDelay } from '../backoff.js';
import { RpcError, toRpcError } from '../errors.js';
import type { CallerCore } from './node-core.js';
import type { PendingCall, PendingOutcome } from './pending-registry.js';

/** Retrying a sync call: the same envelope (same messageId) is published again. */
export interface RetryOptions {
  /** Publishes in all, the first included. Default 1 (no retry). */
  readonly attempts: number;
  /** How long one attempt waits for its answer. Default: timeoutMs / attempts. */
  readonly attemptTimeoutMs?: number;
  /** Pause before each retry, less up to 20% jitter so callers that failed together do not retry together. Default 100 ms. */
  readonly backoffMs?: number;
}

export interface SyncCall {
  readonly requestId: string;
  readonly correlationId: string;
  readonly capability: string;
  /** The call's overall deadline (the one written in the envelope). */
  readonly deadline: number;
  readonly publish: () => Promise<void>;
  /** Tells a request/response transport that nobody waits any more (it cancels remote work). */
  readonly abandon: (() => void) | undefined;
  readonly onProgress: ((data: unknown) => void) | undefined;
  readonly onApproval: PendingCall['onApproval'];
  readonly signal: AbortSignal | undefined;
  readonly retry: RetryOptions | undefined;
}

/**
 * Waits for the final response, republishing the same envelope (same messageId, signed afresh) after a lost attempt (no
 * answer in time, or a retriable publish failure) while attempts and the overall deadline
 * allow. The receiver dedupes by messageId, so a retry never runs the handler twice; it is
 * answered from the first run's stored response.
 */
export async function runSyncCall(core: CallerCore, call: SyncCall): Promise<{ outcome: PendingOutcome; sent: boolean }> {
  const attempts = call.retry?.attempts ?? 1;
  const attemptTimeout = call.retry?.attemptTimeoutMs ?? Math.ceil((call.deadline - core.clock.now()) / attempts);
  for (let attempt = 1; ; attempt++) {
    const attemptDeadline = Math.min(call.deadline, core.clock.now() + attemptTimeout);
    const { outcome, registered } = await attemptOnce(core, call, attemptDeadline);
    const sent = registered || attempt > 1;
    const lastChance = attempt >= attempts || core.clock.now() >= call.deadline || call.signal?.aborted;
    if (outcome.ok || lastChance || !isLostAttempt(outcome.error)) return { outcome, sent };
    core.logger.debug({ requestId: call.requestId, attempt, code: outcome.error.code }, 'retrying call with the same messageId');
    const pause = call.retry?.backoffMs ?? 100;
    await new Promise((resolve) => setTimeout(resolve, backoffDelay({ initialMs: pause, maxMs: pause }, attempt)));
  }
}

/** The attempt may not have reached the target or its answer may be lost: try again. */
function isLostAttempt(error: RpcError): boolean {
  return ['EAGENTRPC_TIMEOUT', 'EAGENTRPC_PUBLISH_FAILED', 'EAGENTRPC_TRANSPORT_CLOSED', 'EAGENTRPC_BUSY'].includes(error.code) && error.details?.cancelled !== true;
}

/** `registered: false` when the registry refused the call, so nothing was published. */
function attemptOnce(core: CallerCore, call: SyncCall, deadline: number): Promise<{ outcome: PendingOutcome; registered: boolean }> {
  return new Promise((resolve) => {
    const { signal, requestId } = call;
    const onAbort = (): void => {
      call.abandon?.();
      core.registry.settle(requestId, {
        ok: false,
        error: new RpcError('EAGENTRPC_ABANDONED', 'the caller cancelled the call', { details: { requestId, cancelled: true } }),
      });
    };
    const refused = core.registry.register({
      requestId,
      correlationId: call.correlationId,
      capability: call.capability,
      deadline,
      onProgress: call.onProgress,
      onApproval: call.onApproval,
      onSettle: (outcome) => {
        signal?.removeEventListener('abort', onAbort);
        resolve({ outcome, registered: true });
      },
    });
    if (refused) return resolve({ outcome: { ok: false, error: refused }, registered: false });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    call.publish().catch((error: unknown) => core.registry.settle(requestId, { ok: false, error: toRpcError(error) }));
  });
}
