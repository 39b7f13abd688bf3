export { collapseChain } from './collapse-chain.js';
export { FLOW_HEADER, decodeFlowState, encodeFlowState, type FlowState } from './flow-state.js';
export { DEFAULT_GUARD_LIMITS, GUARD_RULES, checkCall, recursionLogLine, type GuardLimits, type GuardRule, type GuardViolation } from './guard-rules.js';
export { RunawayGuard, guardError, type GuardDecision } from './runaway-guard.js';
export type { GuardStore } from './guard-store.js';
