import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { CallResult } from '../call-result.js';
import type { HandlerContext, HandlerResult, RespondOptions } from './handler.js';
import type { InboxCore } from './node-core.js';
import { requestAgent, type RequestAgentOptions } from './request-agent.js';
import { parseTraceparent, TRACEPARENT_HEADER } from '../trace-context.js';
import type { ApprovalAnswer, ApprovalPrompt } from './approvals.js';
import type { ExecutionScope } from './execution-scope.js';

/** What the dispatch does for a context's `respond` and `requestApproval`. */
export interface ContextActions {
  readonly responded: boolean;
  respond(result: HandlerResult, options: RespondOptions | undefined): Promise<void>;
  requestApproval(prompt: ApprovalPrompt): Promise<ApprovalAnswer>;
}

/** Contexts made from another for part of its work (a workflow step's): what each was made from. */
const derivedFrom = new WeakMap<HandlerContext, HandlerContext>();

/**
 * A context made from `original` for part of its work (a copy with its own logger, signal
 * or usage tap): the features keyed by the context (budget, execution scope, spans) find
 * the request's own through it.
 */
export function derivedContext<C extends HandlerContext>(copy: C, original: HandlerContext): C {
  derivedFrom.set(copy, original);
  return copy;
}

/** The context the node made for the request, which `ctx` is or was derived from. */
function own(ctx: HandlerContext): RequestContext | undefined {
  let current: HandlerContext | undefined = ctx;
  while (current !== undefined && !(current instanceof RequestContext)) current = derivedFrom.get(current);
  return current;
}

/**
 * What a handler gets: the request and what every handler may need, nothing per feature
 * (usage, budgets, an execution's scope and spans hang off their own modules, keyed by the
 * context). Its functions are made on first use, bound, so a handler may destructure them
 * and a handler that never calls them pays nothing; `signal` and `logger` likewise. (Getters
 * on a class cost nothing per request; in an object literal they send V8 down a slow path.)
 */
export class RequestContext implements HandlerContext {
  readonly correlationId: string;
  readonly from: string;
  readonly capability: string;
  readonly deadline: number | undefined;
  readonly #core: InboxCore;
  readonly #actions: ContextActions;
  readonly #execution: ExecutionScope | undefined;
  #respond: HandlerContext['respond'] | undefined;
  #requestAgent: HandlerContext['requestAgent'] | undefined;
  #requestApproval: HandlerContext['requestApproval'] | undefined;
  #emit: HandlerContext['emit'] | undefined;
  #logger: HandlerContext['logger'] | undefined;

  constructor(
    core: InboxCore,
    readonly envelope: AgentRpcEnvelope,
    readonly attempt: number,
    actions: ContextActions,
    execution: ExecutionScope | undefined,
  ) {
    this.#core = core;
    this.#actions = actions;
    this.#execution = execution;
    this.correlationId = envelope.correlationId;
    this.from = envelope.from;
    this.capability = envelope.capability;
    this.deadline = envelope.deadline;
  }

  get respond(): HandlerContext['respond'] {
    return (this.#respond ??= (result, options) => this.#actions.respond(result, options));
  }

  get requestApproval(): HandlerContext['requestApproval'] {
    return (this.#requestApproval ??= (prompt) => this.#actions.requestApproval(prompt));
  }

  get requestAgent(): HandlerContext['requestAgent'] {
    return (this.#requestAgent ??= <O>(options: RequestAgentOptions): Promise<CallResult<O>> => requestAgent<O>(this.#core, options, this.envelope, this.requestApproval));
  }

  get emit(): HandlerContext['emit'] {
    return (this.#emit ??= async (to, capability, payload) => {
      const result = await this.requestAgent({ to, capability, payload, mode: 'fire-and-forget' });
      if (result.status !== 'ok') throw result.error ?? new RpcError('EAGENTRPC_PUBLISH_FAILED', `event ${capability} to ${to} ended ${result.status}`);
    });
  }

  get signal(): AbortSignal {
    return this.#core.cancellations.signalFor(this.envelope, this.#core.clock.now());
  }

  /** The node's logger with the request's ids bound, made on first use (a handler that never logs pays nothing). */
  get logger(): HandlerContext['logger'] {
    this.#logger ??= this.#core.logger.child(requestLogBindings(this.envelope));
    return this.#logger;
  }

  /** The node serving a context, for the modules whose state hangs off it (budgets, spans). */
  static nodeOf(ctx: HandlerContext): InboxCore | undefined {
    const found = own(ctx);
    return found === undefined ? undefined : found.#core;
  }

  /** The executor's scope of a request handed in by `POST /execute`. */
  static executionOf(ctx: HandlerContext): ExecutionScope | undefined {
    const found = own(ctx);
    return found === undefined ? undefined : found.#execution;
  }

  /** The handler already sent its final response itself (`respond`). */
  static responded(ctx: HandlerContext): boolean {
    return ctx instanceof RequestContext && ctx.#actions.responded;
  }
}

/** What every line a handler logs carries: the request, its flow and its trace. */
export function requestLogBindings(envelope: AgentRpcEnvelope): Record<string, unknown> {
  const traceId = parseTraceparent(envelope.headers?.[TRACEPARENT_HEADER])?.traceId;
  return {
    correlationId: envelope.correlationId,
    messageId: envelope.messageId,
    capability: envelope.capability,
    from: envelope.from,
    ...(traceId === undefined ? {} : { traceId }),
  };
}
