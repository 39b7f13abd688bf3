/**
 * `agent-rpc/remote-execution`: running an agent step on a worker node (docs/remote-execution.md):
 * the HTTP client of a worker, the execution context that travels with a step, and the
 * execution scope a handler reads with `executionOf(ctx)`.
 */
export { HttpRemoteAgent, type RemoteExecuteOptions } from '../remote-nodes/http-remote-agent.js';
export {
  serializeContext,
  RemoteExecutionNotSupportedError,
  RedisStoreRef,
  TraceContextTracing,
  LocalStore,
  LocalTracing,
  type ContextComponent,
  type ExecutionContext,
} from '../remote-nodes/remote-execution-context.js';
export type { ExecutionScope, ExecutionMessage, ExecutionStore } from '../rpc/execution-scope.js';
export { executionOf } from '../rpc/handler-features.js';
