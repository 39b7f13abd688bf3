/** Flow recording: the recorder, its store and the views the flow pages (`front-door/`) and the CLI show. Docs: docs/observability.md. */
export { FlowRecordStore } from './flow-record-store.js';
export type { DisplayStatus, FlowCall } from './flow-record.js';
export { FlowRecorder } from './flow-recorder.js';
export { flowTreeLines } from './flow-tree.js';
export { flowView, summarize, type FlowSummary, type FlowView } from './flow-view.js';
export { flowsPublisher, viewFlows } from './flows-topic.js';
export { flowsConfigSchema, type FlowsConfig } from './flows-config.js';
