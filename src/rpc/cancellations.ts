import { RpcError } from '../errors.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';

/** The event a caller sends when it stops waiting for a request: `{requestId}`. */
export const CANCEL_CAPABILITY = '$cancel';

interface Running {
  readonly controller: AbortController;
  readonly caller: string;
  readonly timer: NodeJS.Timeout | undefined;
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
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    if (request.deadline !== undefined) {
      const reason = new RpcError('EAGENTRPC_TIMEOUT', `the handler for ${request.capability} ran past its deadline`, { details: { deadline: request.deadline } });
      timer = setTimeout(() => controller.abort(reason), Math.max(0, request.deadline - now));
      timer.unref();
    }
    this.running.set(request.messageId, { controller, caller: request.from, timer, cancelled: false });
    return controller.signal;
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

/** The requestId a `$cancel` event names, or undefined. */
export function cancelledRequestId(envelope: AgentRpcEnvelope): string | undefined {
  const requestId = (envelope.payload as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}
