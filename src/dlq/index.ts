/** Dead-letter records and their sinks, for the inbox and the tools that read or requeue them. */
export { JsonlDlqSink } from './jsonl-file-sink.js';
export { MemoryDlqSink } from './memory-sink.js';
export { DLQ_EXCERPT_BYTES, DLQ_KINDS, type DlqKind, type DlqRecord, type DlqSink } from './record.js';
