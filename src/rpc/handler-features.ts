import type { RpcError } from '../errors.js';
import { guardError } from '../guard/index.js';
import type { RpcTracing } from '../observability/tracing/rpc-tracing.js';
import type { ExecutionScope } from './execution-scope.js';
import { flowSpentAt, NO_USAGE, recordUsage, usageCausedBy, type Usage } from '../flow-usage.js';
import { reportGuardRejection } from './guard-report.js';
import type { HandlerContext } from './handler.js';
import { RequestContext } from './request-context.js';

/**
 * What some handlers need and most never touch, kept off the handler context: each reads
 * the state its feature keeps for the request being handled.
 */

const usageTaps = new WeakMap<object, (usage: Usage) => void>();

/** Adds model usage (tokens, cost) to the request's: its response carries it, rolled up with its calls'. */
export function reportUsage(ctx: Pick<HandlerContext, 'envelope'>, usage: Usage): void {
  const tap = usageTaps.get(ctx);
  if (tap) tap(usage);
  else recordUsage(ctx.envelope, usage);
}

/**
 * Usage reported through `ctx` (a context derived for part of the work, such as a workflow
 * step's) goes to `tap` instead, which passes it on to the context it was derived from.
 */
export function tapUsage(ctx: Pick<HandlerContext, 'envelope'>, tap: (usage: Usage) => void): void {
  usageTaps.set(ctx, tap);
}

/** Everything the request caused so far: reported usage plus the rolled-up usage of the calls it made. */
export function usageOf(ctx: Pick<HandlerContext, 'envelope'>): Usage {
  return usageCausedBy(ctx.envelope) ?? NO_USAGE;
}

/**
 * The guard's refusal (EAGENTRPC_GUARD_REJECTED, rule tokens or cost) once the flow has
 * spent its budget; undefined while within it. A handler spending model tokens checks it
 * before each model request, like the guard before each call.
 */
export function checkFlowBudget(ctx: HandlerContext): RpcError | undefined {
  const core = RequestContext.nodeOf(ctx);
  if (!core) return undefined;
  const violation = core.guard.checkSpent(flowSpentAt(ctx.envelope));
  if (!violation) return undefined;
  reportGuardRejection(core, violation, core.agentId, core.agentId, ctx.correlationId);
  return guardError(violation, core.agentId, core.agentId);
}

/**
 * The executor's context when the request came through the remote execution protocol
 * (`POST /execute`): its conversation, thoughts and shared store. What the handler adds
 * to `added` goes back as the delta. Undefined for every other request.
 */
export function executionOf(ctx: HandlerContext): ExecutionScope | undefined {
  return RequestContext.executionOf(ctx);
}

/** The node's spans: a model agent records its model requests and tool calls under the handler's span. */
export function tracingOf(ctx: HandlerContext): RpcTracing | undefined {
  return RequestContext.nodeOf(ctx)?.tracing;
}
