/** What the features above the core (telemetry, flow recording, model agents, the daemon) use of it. */
export { composeHandler, composeSender, type CallSender, type HandlerInvoker, type Middleware, type OutgoingCall } from './middleware.js';
export type { EventContext, EventHandler, Handler, HandlerContext, HandlerResult } from './handler.js';
export { checkFlowBudget, executionOf, reportUsage, tapUsage, tracingOf, usageOf } from './handler-features.js';
export { derivedContext } from './request-context.js';
export { noApprovals, type ApprovalAnswer, type ApprovalGate, type ApprovalPrompt } from './approvals.js';
export { CAPABILITIES_CAPABILITY, PING_CAPABILITY, REQUEUE_CAPABILITY, type CapabilitiesAnswer } from './builtin-capabilities.js';
export type { CapabilitySchema } from './capability-schemas.js';
export type { ExecutionMessage, ExecutionScope, ExecutionStore } from './execution-scope.js';
export { currentDispatch, outsideDispatch } from './flow-context.js';
export type { InboundPort, InboundReply } from './inbound-port.js';
export { normalizeAgentUri, PeerTable, type PeerEntry } from './peer-table.js';
export { compilePermissions } from './permissions.js';
export { MAX_TIMEOUT_MS } from './request-agent.js';
export type { ResponsePayload } from './response-payload.js';
