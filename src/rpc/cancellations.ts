import { RpcError } from '../errors.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';

/** The event a caller sends when it stops waiting for a request: `{requestId}`. */
export const CANCEL_CAPABILITY = '$cancel';

interface Running {
  readonly controller: AbortController;
  readonly caller: string;
  readonly timer: NodeJS.Timeout | undefined;
  /** The reason the signal aborts with at the deadline, when the request has one. */
  readonly deadlineReason: RpcError | undefined;
  /** Aborted by `cancel` (not by the deadline). */
  cancelled: boolean;
}

/**
 * The cancellation signals of requests being handled. A signal exists only once a handler
 * asks for it (`ctx.signal`), so handlers that never look pay nothing. It aborts at the
 * request's deadline, when its caller sends `$cancel`, or when the session it serves is
 * cancelled; the reason is an RpcError (EAGENTRPC_TIMEOUT or EAGENTRPC_ABANDONED).
 */
export class Cancellations {
  private readonly running = new Map<string, Running>();

  signalFor(request: AgentRpcEnvelope, now: number): AbortSignal {
    const known = this.running.get(request.messageId);
    if (known) return known.controller.signal;
    const deadlineReason = request.deadline === undefined ? undefined : deadlinePassed(request);
    // Asked for only once the deadline has passed (by a handler running on after it was
    // answered): aborted already, and nothing kept that no release would remove.
    if (deadlineReason !== undefined && request.deadline! <= now) return AbortSignal.abort(deadlineReason);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    if (deadlineReason !== undefined) {
      timer = setTimeout(() => controller.abort(deadlineReason), request.deadline! - now);
      timer.unref();
    }
    this.running.set(request.messageId, { controller, caller: request.from, timer, deadlineReason, cancelled: false });
    return controller.signal;
  }

  /**
   * The request's deadline has passed (seen before the signal's own timer fired): its signal
   * aborts now, so a handler still running after its caller was answered hears of it.
   */
  expire(requestId: string): void {
    const running = this.running.get(requestId);
    if (running?.deadlineReason !== undefined) running.controller.abort(running.deadlineReason);
  }

  /** Aborts a running request. `from`, when given, must be the request's own caller. False when nothing ran or the caller differs. */
  cancel(requestId: string, reason: string, from?: string): boolean {
    const running = this.running.get(requestId);
    if (!running || (from !== undefined && from !== running.caller)) return false;
    running.cancelled = true;
    running.controller.abort(new RpcError('EAGENTRPC_ABANDONED', `cancelled: ${reason}`, { details: { requestId, cancelled: true } }));
    return true;
  }

  /** The request's handler has ended. True when the request had been cancelled (its caller, session or task gave it up). */
  release(requestId: string): boolean {
    const running = this.running.get(requestId);
    if (!running) return false;
    clearTimeout(running.timer);
    this.running.delete(requestId);
    return running.cancelled;
  }
}

function deadlinePassed(request: AgentRpcEnvelope): RpcError {
  return new RpcError('EAGENTRPC_TIMEOUT', `the handler for ${request.capability} ran past its deadline`, { details: { deadline: request.deadline } });
}

/** The requestId a `$cancel` event names, or undefined. */
export function cancelledRequestId(envelope: AgentRpcEnvelope): string | undefined {
  const requestId = (envelope.payload as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}
