import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { WireError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CallResult } from '../call-result.js';
import type { ApprovalAnswer, ApprovalPrompt } from './approvals.js';
import type { RequestAgentOptions } from './request-agent.js';

/** What a handler sends back: data, or an error the caller receives as a typed RpcError. */
export type HandlerResult<O = unknown> =
  | { ok: true; data: O }
  | { ok: false; error: { code: string; message: string; retriable?: boolean; details?: Record<string, unknown> } };

export interface RespondOptions {
  /** An intermediate answer; more responses follow. Only `{ok: true}` results can be progress. */
  readonly progress?: boolean;
}

/**
 * What every handler gets. Feature state is not on it but with the feature, keyed by the
 * context: `reportUsage(ctx, usage)` and `usageOf(ctx)` (tokens and cost),
 * `checkFlowBudget(ctx)` (the guard's budget), `executionOf(ctx)` (a remote execution's
 * scope), `tracingOf(ctx)` (the node's spans).
 */
export interface HandlerContext {
  /** The request envelope as received (already verified). */
  readonly envelope: AgentRpcEnvelope;
  readonly correlationId: string;
  /** `agent://<id>` of the caller. */
  readonly from: string;
  readonly capability: string;
  /** Absolute ms epoch by which the caller stops waiting, if it set one. */
  readonly deadline: number | undefined;
  /** 1 on first delivery; higher when the transport redelivers after a retriable failure. */
  readonly attempt: number;
  /**
   * The node's logger with this request's `correlationId`, `messageId`, `capability`, `from`
   * and `traceId` (the W3C trace id of its traceparent) bound to every line.
   */
  readonly logger: Logger;
  /**
   * Sends a response now. Call it with `{progress: true}` any number of times, then once
   * without (the final answer). If the handler returns without a final respond, its
   * return value is sent as `{ok: true, data}`; a thrown error becomes `{ok: false, error}`.
   */
  respond(result: HandlerResult, options?: RespondOptions): Promise<void>;
  /** Calls another agent from this handler: the call joins this request's flow (see AgentNode.requestAgent). */
  requestAgent<O = unknown>(options: RequestAgentOptions): Promise<CallResult<O>>;
  /**
   * Publishes an event to `to`'s `capability`: a fire-and-forget call that joins this
   * request's flow (correlationId, causedBy, guard), checked by the same permission rules
   * and signed like a call. Resolves once the event is published; rejects with the RpcError
   * of a refusal (permission, guard, schema, transport).
   */
  emit(to: string, capability: string, payload: unknown): Promise<void>;
  /**
   * Asks before an action. In a safe-mode session the prompt waits in the session until it
   * is answered; without safe mode it is approved at once. A request that came over a broker
   * asks its caller, up the chain, until a session or a caller's `onApproval` answers it;
   * with nobody able to answer it is declined with the reason (`no-approver`, `timeout`, …).
   */
  requestApproval(prompt: ApprovalPrompt): Promise<ApprovalAnswer>;
  /**
   * Aborted when the request's deadline passes, its caller cancels it (`$cancel`, sent when
   * a caller's AbortSignal fires) or the session it serves is cancelled; the reason is an
   * RpcError. Long work (a model loop, a shell command) should stop when it fires.
   */
  readonly signal: AbortSignal;
}

export type Handler<I = unknown, O = unknown> = (input: I, ctx: HandlerContext) => O | Promise<O>;

/** What an event handler is given: a handler's context without `respond`, since an event has no caller waiting for an answer. */
export type EventContext = Omit<HandlerContext, 'respond'>;

/**
 * Handles the events sent to a capability (`mode: 'fire-and-forget'`, `ctx.emit`, `agent-rpc
 * emit`). Its promise settles the delivery: resolved, the event is done; rejected with a
 * retriable error, it is delivered again (up to the node's attempts); otherwise, or once
 * attempts run out, the event is dead-lettered as `handler-failed`.
 */
export type EventHandler<I = unknown> = (payload: I, ctx: EventContext) => void | Promise<void>;

export function toWireError(error: Extract<HandlerResult, { ok: false }>['error']): WireError {
  const wire: WireError = { code: error.code, message: error.message, retriable: error.retriable ?? false };
  if (error.details !== undefined) wire.details = error.details;
  return wire;
}
