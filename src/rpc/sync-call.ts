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
  readonly transport: PendingCall['transport'];
  /** The call's overall deadline (the one written in the envelope). */
  readonly deadline: number;
  readonly publish: () => Promise<void>;
  /** Tells the target that nobody waits any more: a gateway cancels the remote work, over a transport the target hears `$cancel`. */
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
 * answered from the first run's stored response. The call stays registered from the first
 * publish to the end, so an answer that arrives while a retry waits for its turn still
 * settles it instead of arriving as an unmatched response.
 */
export function runSyncCall(core: CallerCore, call: SyncCall): Promise<{ outcome: PendingOutcome; sent: boolean }> {
  return call.retry === undefined && call.signal === undefined ? oneAttempt(core, call) : withRetries(core, call);
}

/**
 * The common call: one publish, no signal to watch. Registered until its deadline (the
 * registry's timer ends it), settled by its answer or by a publish that failed.
 */
function oneAttempt(core: CallerCore, call: SyncCall): Promise<{ outcome: PendingOutcome; sent: boolean }> {
  return new Promise((resolve) => {
    const refused = core.registry.register({
      requestId: call.requestId,
      correlationId: call.correlationId,
      capability: call.capability,
      transport: call.transport,
      deadline: call.deadline,
      onProgress: call.onProgress,
      onApproval: call.onApproval,
      onSettle: (outcome) => resolve({ outcome, sent: true }),
    });
    if (refused) return resolve({ outcome: { ok: false, error: refused }, sent: false });
    call.publish().catch((error: unknown) => core.registry.settle(call.requestId, { ok: false, error: toRpcError(error) }));
  });
}

async function withRetries(core: CallerCore, call: SyncCall): Promise<{ outcome: PendingOutcome; sent: boolean }> {
  const attempts = call.retry?.attempts ?? 1;
  const pause = call.retry?.backoffMs ?? 100;
  const plan: AttemptPlan = {
    attemptTimeout: call.retry?.attemptTimeoutMs ?? Math.ceil((call.deadline - core.clock.now()) / attempts),
    mayRetry: (attempt, error) => attempt < attempts && core.clock.now() < call.deadline && !call.signal?.aborted && isLostAttempt(error),
    pause: (attempt) => new Promise((resolve) => setTimeout(resolve, backoffDelay({ initialMs: pause, maxMs: pause }, attempt))),
  };
  // A registry that refuses the call (capacity) is a lost attempt too: nothing was sent.
  for (let attempt = 1; ; attempt++) {
    const { outcome, registered } = await registerAndPublish(core, call, attempt, plan);
    if (registered || outcome.ok || !plan.mayRetry(attempt, outcome.error)) return { outcome, sent: registered || attempt > 1 };
    await plan.pause(attempt);
  }
}

interface AttemptPlan {
  /** How long one attempt waits for its answer. */
  readonly attemptTimeout: number;
  /** Another attempt follows attempt `attempt`, lost with `error`. */
  readonly mayRetry: (attempt: number, error: RpcError) => boolean;
  /** The pause before the attempt after `attempt`. */
  readonly pause: (attempt: number) => Promise<void>;
}

/**
 * Registers the call until its overall deadline and publishes attempt after attempt
 * (from `first`) while it waits; resolves when the registry settles it. `registered: false`
 * when the registry refused the call, so nothing was published.
 */
function registerAndPublish(core: CallerCore, call: SyncCall, first: number, plan: AttemptPlan): Promise<{ outcome: PendingOutcome; registered: boolean }> {
  return new Promise((resolve) => {
    const { requestId, signal } = call;
    let attemptTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      call.abandon?.();
      core.registry.settle(requestId, { ok: false, error: new RpcError('EAGENTRPC_ABANDONED', 'the caller cancelled the call', { details: { requestId, cancelled: true } }) });
    };
    const lost = (attempt: number, error: RpcError): void => {
      if (!core.registry.has(requestId)) return;
      if (!plan.mayRetry(attempt, error)) {
        // An attempt that ran out of time ends the call the way the registry's deadline does.
        if (error === attemptTimedOut) core.registry.expire(requestId);
        else core.registry.settle(requestId, { ok: false, error });
        return;
      }
      core.logger.debug({ requestId, attempt, code: error.code }, 'retrying call with the same messageId');
      void plan.pause(attempt).then(() => send(attempt + 1));
    };
    const send = (attempt: number): void => {
      if (!core.registry.has(requestId)) return;
      // An attempt that waits to the call's deadline needs no timer of its own: the
      // registry's deadline ends the call (so a call without retries arms one timer, not two).
      const attemptEnds = core.clock.now() + plan.attemptTimeout;
      if (attemptEnds < call.deadline) attemptTimer = setTimeout(() => lost(attempt, attemptTimedOut), attemptEnds - core.clock.now());
      call.publish().catch((error: unknown) => {
        clearTimeout(attemptTimer);
        lost(attempt, toRpcError(error));
      });
    };
    const refused = core.registry.register({
      requestId,
      correlationId: call.correlationId,
      capability: call.capability,
      transport: call.transport,
      deadline: call.deadline,
      onProgress: call.onProgress,
      onApproval: call.onApproval,
      onSettle: (outcome) => {
        clearTimeout(attemptTimer);
        signal?.removeEventListener('abort', onAbort);
        resolve({ outcome, registered: true });
      },
    });
    if (refused) return resolve({ outcome: { ok: false, error: refused }, registered: false });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    send(first);
  });
}

/** What an attempt that ran out of time is lost with (never seen by the caller: see `lost`). */
const attemptTimedOut = new RpcError('EAGENTRPC_TIMEOUT', 'no response to this attempt in time');

/** The attempt may not have reached the target or its answer may be lost: try again. */
function isLostAttempt(error: RpcError): boolean {
  return ['EAGENTRPC_TIMEOUT', 'EAGENTRPC_PUBLISH_FAILED', 'EAGENTRPC_TRANSPORT_CLOSED', 'EAGENTRPC_BUSY'].includes(error.code) && error.details?.cancelled !== true;
}
