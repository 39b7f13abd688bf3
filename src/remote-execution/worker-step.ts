import { modelMessageOf, type ModelMessage } from '../model-agents/index.js';
import { RpcError } from '../errors.js';
import { HttpRemoteAgent } from '../remote-nodes/http-remote-agent.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { WorkerStepRunner } from '../workflows/index.js';
import { executionContextOf, reportWorkerUsage } from './execution-context-of.js';
import { outputText } from './output-text.js';

export interface WorkerStepOptions {
  /** The agent's remote nodes, looked up when the step starts: a node added to the store since is found. */
  readonly remoteNodes: RemoteNodeResolver;
  /** The executing agent: the worker agent run by default, and the user the step runs for. */
  readonly agentId: string;
  /** Applied to the step's own messages before they leave, as for a local step's model. */
  readonly mask?: (text: string) => string;
}

/**
 * Worker steps through the remote execution protocol (docs/remote-execution.md). The
 * worker's agent (`agentId`, default the same id as here) continues the conversation: the
 * context carries the dependencies' messages and the step's own, the input is `{message}`,
 * the step's last user message. The worker's usage is reported in `ctx`, so it rolls up
 * into the step, the run record and the caller's usage like a local step's.
 */
export function workerStepRunner(options: WorkerStepOptions): WorkerStepRunner {
  return async (step, given, ctx) => {
    const node = await options.remoteNodes.get(step.worker);
    // Checked when the file loaded; a store node may have been removed since.
    if (!node) throw new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `step ${step.name}: no remote node ${step.worker}`, { details: { node: step.worker } });
    const mask = options.mask ?? ((text: string) => text);
    const own = step.messages.map((message): ModelMessage => ({ role: message.role, content: mask(message.content) }));
    const last = own.findLastIndex((message) => message.role === 'user');
    if (last < 0) throw new RpcError('EAGENTRPC_SCHEMA_VIOLATION', `step ${step.name} runs on worker ${step.worker}: it needs a user message to send as the input`);
    // The last user message travels as the input, which the worker's capability makes its
    // own message; left in the context too, the worker's model would read it twice.
    const sent = last === own.length - 1 ? own.slice(0, last) : own;
    const context = executionContextOf(ctx, [...given, ...sent]);
    const before = context.messages.length;
    const timeoutMs = step.timeoutMs;
    // A step allowed longer than one HTTP exchange is run asynchronously and bounded by its own timeout.
    const async = timeoutMs !== undefined && timeoutMs > node.timeoutMs;
    const agent = new HttpRemoteAgent(async ? { ...node, timeoutMs } : node, step.agentId ?? options.agentId);
    try {
      const result = await agent.execute(options.agentId, context, { message: own[last]!.content }, { signal: ctx.signal, async, ...(step.capability ? { capability: step.capability } : {}) });
      return { output: outputText(result), messages: context.messages.slice(before).map(modelMessageOf) };
    } finally {
      // What the worker spent counts even when the step failed there: the delta is merged first.
      reportWorkerUsage(ctx, context);
    }
  };
}
