/** The client side of remote execution as handlers use it: a workflow's worker steps and `type: remote-worker` capabilities (`handler-type/`); the `/execute` server is `server/`. Docs: docs/remote-execution.md. */
export { remoteWorkerHandler, type RemoteWorkerHandlerOptions } from './remote-worker-handler.js';
export { remoteWorkerHandlerSchema, type RemoteWorkerHandlerConfig } from './remote-worker-entry.js';
export { workerStepRunner, type WorkerStepOptions } from './worker-step.js';
