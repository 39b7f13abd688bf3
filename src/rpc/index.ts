/** What the features above the core (telemetry, flow recording, model agents, the daemon) use of it. */
export { composeHandler, composeSender, type CallSender, type HandlerInvoker, type Middleware, type OutgoingCall } from './middleware.js';
export type { Handler, HandlerContext, HandlerResult } from './handler.js';
export { checkFlowBudget, executionOf, reportUsage, tapUsage, tracingOf, usageOf } from './handler-features.js';
export { derivedContext } from './request-context.js';
