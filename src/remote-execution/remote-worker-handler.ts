import { fillTemplate, type ModelMessage } from '../model-agents/index.js';
import { RpcError } from '../errors.js';
import { HttpRemoteAgent } from '../remote-nodes/http-remote-agent.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { Handler } from '../rpc/index.js';
import { executionContextOf, reportWorkerUsage } from './execution-context-of.js';
import type { RemoteWorkerHandlerConfig } from './remote-worker-entry.js';

export interface RemoteWorkerHandlerOptions {
  readonly entry: RemoteWorkerHandlerConfig;
  /** The agent's remote nodes, looked up at each request: a node added to the store since is found. */
  readonly remoteNodes: RemoteNodeResolver;
  /** The executing agent: the worker agent run by default, and the user the work runs for. */
  readonly agentId: string;
  /** Applied to the instructions and the message before they leave (the secrets of this agent). */
  readonly mask?: (text: string) => string;
}

/**
 * A capability run on a remote worker through the remote execution protocol: the request's
 * payload (or `{message}` filled from it) is the input, the instructions the context's first
 * message, and the worker's result the answer. What the worker spent is reported in the
 * request, failed or not; its errors are the executor's (docs/remote-execution.md).
 */
export function remoteWorkerHandler(options: RemoteWorkerHandlerOptions): Handler {
  const { entry } = options;
  const mask = options.mask ?? ((text: string) => text);
  return async (payload, ctx) => {
    const node = await options.remoteNodes.get(entry.worker);
    // Checked when the files loaded; a store node may have been removed since.
    if (!node) throw new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `no remote node ${entry.worker}`, { details: { node: entry.worker } });
    const instructions: ModelMessage[] = entry.instructions === undefined ? [] : [{ role: 'user', content: mask(entry.instructions) }];
    const context = executionContextOf(ctx, instructions);
    const input = entry.message === undefined ? payload : { message: mask(fillTemplate(entry.message, payload)) };
    // Work allowed longer than one HTTP exchange is run asynchronously and bounded by its own timeout.
    const async = entry.timeoutMs !== undefined && entry.timeoutMs > node.timeoutMs;
    const agent = new HttpRemoteAgent(async ? { ...node, timeoutMs: entry.timeoutMs! } : node, entry.agentId ?? options.agentId);
    try {
      return await agent.execute(options.agentId, context, input, { signal: ctx.signal, async, ...(entry.capability ? { capability: entry.capability } : {}) });
    } finally {
      reportWorkerUsage(ctx, context);
    }
  };
}
