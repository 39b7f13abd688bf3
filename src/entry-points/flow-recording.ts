/**
 * `agent-rpc/flow-recording`: what every call of a flow did, kept for the flow pages and
 * `agent-rpc flow` (docs/observability.md): the recorder a node reports to, its store and
 * the records it keeps.
 */
export { FlowRecorder, type FlowRecorderOptions } from '../flow-recording/flow-recorder.js';
export { FlowRecordStore, DEFAULT_RETENTION as DEFAULT_FLOW_RETENTION, type FlowRetention, type StoredFlow } from '../flow-recording/flow-record-store.js';
export type { FlowCall, CallerSide, HandlerSide, FlowUsage, DisplayStatus } from '../flow-recording/flow-record.js';
export { noFlows, type FlowObserver, type FlowCallIdentity } from '../observability/flow-observer.js';
