import { positiveInteger } from '../check-integer.js';
import { RpcError } from '../errors.js';
import type { ApprovalRequestWire } from './response-payload.js';
import type { Usage } from '../flow-usage.js';
import type { RpcMetrics } from '../observability/index.js';
import type { TransportKind } from '../transport.js';
import { RecentIds } from './recent-ids.js';

/** How a pending call ends: a final response, or an error made locally (timeout, close). */
export type PendingOutcome = ({ readonly ok: true; readonly data: unknown } | { readonly ok: false; readonly error: RpcError }) & {
  /** What the call caused (tokens, cost), when the response said. */
  readonly usage?: Usage;
};

export interface PendingCall {
  /** messageId of the request; responses carry it as `causedBy`. */
  readonly requestId: string;
  readonly correlationId: string;
  readonly capability: string;
  /** The transport that carries the request and its answer: a lost connection there abandons the call. */
  readonly transport?: TransportKind;
  /** Absolute ms epoch after which the call times out. */
  readonly deadline: number;
  readonly onProgress: ((data: unknown) => void) | undefined;
  /** A question the target asks up the chain; without it the question goes unanswered until its deadline. */
  readonly onApproval?: (approval: ApprovalRequestWire) => void;
  readonly onSettle: (outcome: PendingOutcome) => void;
}

const RECENTLY_ANSWERED = 10_000;

interface Entry {
  call: PendingCall;
  timer: NodeJS.Timeout;
}

export interface PendingRegistryOptions {
  /** Calls waiting at once; past it `register` refuses with EAGENTRPC_BUSY. Default 10,000. */
  readonly capacity?: number;
  readonly metrics?: RpcMetrics;
  /** Current time in ms epoch; deadlines are absolute. */
  readonly now: () => number;
}

/**
 * Calls waiting for their final response, keyed by request messageId (two calls in one
 * flow share a correlationId, so the correlationId cannot be the key). Every entry
 * settles exactly once: by response, by its deadline timer, or by `close()`.
 */
export class PendingRegistry {
  private readonly entries = new Map<string, Entry>();
  /** Requests answered lately: a second answer to one of them is a harmless duplicate. */
  private readonly answered = new RecentIds(RECENTLY_ANSWERED);
  private readonly capacity: number;
  private closed = false;
  /** Transports whose connection is lost, and since when (ms epoch). */
  private readonly down = new Map<TransportKind, number>();
  /** Transports lost past the node's grace: new calls on them are refused. */
  private readonly refusing = new Map<TransportKind, number>();

  constructor(private readonly options: PendingRegistryOptions) {
    this.capacity = positiveInteger(options.capacity ?? 10_000, 'pending.capacity');
  }

  get size(): number {
    return this.entries.size;
  }

  /** Returns an error instead of registering when full or closed; calls in flight are untouched. */
  register(call: PendingCall): RpcError | undefined {
    if (this.closed) return new RpcError('EAGENTRPC_ABANDONED', 'the node is closing; no new calls are accepted');
    if (this.entries.size >= this.capacity) {
      return new RpcError('EAGENTRPC_BUSY', `pending registry is full (${this.capacity} calls waiting)`, {
        details: { capacity: this.capacity },
      });
    }
    if (this.entries.has(call.requestId)) throw new RangeError(`duplicate pending request id ${call.requestId}`);
    const lostFor = call.transport === undefined ? undefined : this.refusing.get(call.transport);
    if (lostFor !== undefined) return connectionLostError(call.transport as TransportKind, lostFor, call.requestId);
    const waitMs = Math.max(0, call.deadline - this.options.now());
    const timer = setTimeout(() => this.expire(call.requestId), waitMs);
    this.entries.set(call.requestId, { call, timer });
    this.options.metrics?.pendingChanged?.(this.entries.size);
    return undefined;
  }

  has(requestId: string): boolean {
    return this.entries.has(requestId);
  }

  /** The transport a waiting call went out on (undefined: none waits, or none was named). */
  transportOf(requestId: string): TransportKind | undefined {
    return this.entries.get(requestId)?.call.transport;
  }

  /** Delivers a progress response. Returns false if no call waits for it. */
  progress(requestId: string, data: unknown): boolean {
    const entry = this.entries.get(requestId);
    if (!entry) return false;
    entry.call.onProgress?.(data);
    return true;
  }

  /** Delivers an approval request of the target. Returns false if no call waits for it. */
  approval(requestId: string, approval: ApprovalRequestWire): boolean {
    const entry = this.entries.get(requestId);
    if (!entry) return false;
    entry.call.onApproval?.(approval);
    return true;
  }

  /**
   * Settles a waiting call. Returns false (and does nothing) if none waits: late or unknown.
   * `byResponse` marks an outcome that came from the target, so a duplicate of it is known.
   */
  settle(requestId: string, outcome: PendingOutcome, byResponse = false): boolean {
    const entry = this.entries.get(requestId);
    if (!entry) return false;
    this.entries.delete(requestId);
    clearTimeout(entry.timer);
    this.options.metrics?.pendingChanged?.(this.entries.size);
    if (byResponse) this.answered.add(requestId);
    entry.call.onSettle(outcome);
    return true;
  }

  /** True when the request was settled by an answer recently (the last 10,000 such requests). */
  wasAnswered(requestId: string): boolean {
    return this.answered.has(requestId);
  }


  /** Drops a call without settling it (its request could not be sent; the caller is told directly). */
  forget(requestId: string): void {
    const entry = this.entries.get(requestId);
    if (!entry) return;
    this.entries.delete(requestId);
    clearTimeout(entry.timer);
    this.options.metrics?.pendingChanged?.(this.entries.size);
  }

  /** The connection of `transport` is lost: a call on it that reaches its deadline now is abandoned, not timed out. */
  connectionDown(transport: TransportKind): void {
    if (!this.down.has(transport)) this.down.set(transport, this.options.now());
  }

  /**
   * The connection of `transport` has been lost for `lostForMs` (the node's grace): every
   * call waiting on it is settled as abandoned, and new calls on it are refused the same
   * way until `connectionRestored`.
   */
  connectionLost(transport: TransportKind, lostForMs: number): void {
    this.refusing.set(transport, lostForMs);
    for (const [requestId, entry] of [...this.entries]) {
      if (entry.call.transport === transport) this.settle(requestId, { ok: false, error: connectionLostError(transport, lostForMs, requestId) });
    }
  }

  connectionRestored(transport: TransportKind): void {
    this.down.delete(transport);
    this.refusing.delete(transport);
  }

  /** Settles every waiting call as abandoned and refuses new ones. */
  close(): void {
    this.closed = true;
    for (const requestId of [...this.entries.keys()]) {
      this.settle(requestId, {
        ok: false,
        error: new RpcError('EAGENTRPC_ABANDONED', 'the calling node closed before the response arrived', {
          details: { requestId },
        }),
      });
    }
  }

  /**
   * Settles a call whose time is up: timed out, or abandoned when the connection of its
   * transport is lost at that moment (no answer could have come).
   */
  expire(requestId: string): void {
    const entry = this.entries.get(requestId);
    if (!entry) return;
    const { call } = entry;
    const since = call.transport === undefined ? undefined : this.down.get(call.transport);
    if (since !== undefined) {
      this.settle(requestId, { ok: false, error: connectionLostError(call.transport as TransportKind, this.options.now() - since, requestId) });
      return;
    }
    this.settle(requestId, {
      ok: false,
      error: new RpcError('EAGENTRPC_TIMEOUT', `no response to ${call.capability} before its deadline`, {
        details: { requestId, correlationId: call.correlationId, capability: call.capability },
      }),
    });
  }
}

function connectionLostError(transport: TransportKind, lostForMs: number, requestId: string): RpcError {
  return new RpcError('EAGENTRPC_ABANDONED', `the ${transport} connection has been lost for ${lostForMs} ms; the call cannot be answered`, {
    details: { reason: 'connection-lost', transport, requestId },
  });
}
