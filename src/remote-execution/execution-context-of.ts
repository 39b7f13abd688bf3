import { executionMessageOf, type ModelMessage } from '../model-agents/index.js';
import { newMessageId } from '../envelope/index.js';
import { addUsage, NO_USAGE } from '../flow-usage.js';
import type { ExecutionContext } from '../remote-nodes/index.js';
import { reportUsage, type HandlerContext } from '../rpc/index.js';
import { parseTraceparent, TRACEPARENT_HEADER } from '../trace-context.js';

/**
 * The context a worker is sent for work done in the request of `ctx`: the request's trace, a
 * new step id under the request's message id, the `messages` before the input, no thoughts
 * and no usage yet.
 */
export function executionContextOf(ctx: HandlerContext, messages: readonly ModelMessage[]): ExecutionContext {
  const traceId = parseTraceparent(ctx.envelope.headers?.[TRACEPARENT_HEADER])?.traceId;
  return {
    ...(traceId ? { traceId } : {}),
    stepId: newMessageId(),
    parentStepId: ctx.envelope.messageId,
    messages: messages.map(executionMessageOf),
    thoughts: [],
    usage: [],
  };
}

/** Reports in `ctx` what the worker spent (the delta merged into `context`), so it rolls up like local usage. */
export function reportWorkerUsage(ctx: HandlerContext, context: ExecutionContext): void {
  if (context.usage.length > 0) reportUsage(ctx, context.usage.reduce(addUsage, NO_USAGE));
}
