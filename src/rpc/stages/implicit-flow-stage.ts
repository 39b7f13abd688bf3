import { runInDispatch } from '../flow-context.js';
import type { Middleware } from '../middleware.js';

/**
 * Runs each handler inside its request's flow context (AsyncLocalStorage), so calls made
 * through the node (`node.requestAgent`) from anywhere in the handler's code join the
 * flow as `ctx.requestAgent` does. In the pipeline unless the node sets `implicitFlow: false`.
 */
export function implicitFlowStage(agentUri: string): Middleware {
  return {
    name: 'implicit-flow',
    handler: (next) => (input, ctx) => runInDispatch({ agentUri, request: ctx.envelope, askApproval: ctx.requestApproval }, () => next(input, ctx)),
  };
}
