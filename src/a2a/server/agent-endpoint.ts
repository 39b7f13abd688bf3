import { AgentCard, type SendMessageRequest, type StreamResponse, type Message, type Task } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultExecutionEventBusManager, DefaultRequestHandler, JsonRpcTransportHandler, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { RetainedTaskStore } from './retained-task-store.js';
import type { CapabilityConfig } from '../../config/index.js';
import { callTargetOf } from './a2a-parts.js';
import { buildAgentCard } from './agent-card.js';
import { TaskExecutor, type A2aAgent } from './task-executor.js';
import type { TaskRuns } from './task-runs.js';

export interface EndpointAgent extends A2aAgent {
  readonly id: string;
  readonly capabilityConfigs: readonly CapabilityConfig[];
  /** This agent's own deadline for a task's request (agent.yaml `a2a.timeoutMs`), over the server's. */
  readonly timeoutMs?: number;
  /** This agent's own count of tasks kept per user (agent.yaml `a2a.tasksPerUser`), over the server's. */
  readonly tasksPerUser?: number;
  /** Where its tasks are kept (the daemon's: files in the data directory); default in memory, bounded by tasksPerUser. */
  readonly taskStore?: TaskStore;
}

/** One agent's A2A side: its card (and the card's JSON), and its JSON-RPC handlers for 1.0 and 0.3. */
export interface AgentEndpoint {
  readonly agentId: string;
  readonly card: AgentCard;
  readonly cardJson: string;
  readonly handler: DefaultRequestHandler;
  readonly jsonRpc: JsonRpcTransportHandler;
  readonly legacyJsonRpc: LegacyJsonRpcTransportHandler;
}

export function agentEndpoint(agent: EndpointAgent, options: { url: string; version: string; runs: TaskRuns; timeoutMs: number; tasksPerUser: number }): AgentEndpoint {
  const card = buildAgentCard({
    agentId: agent.id,
    capabilities: agent.capabilityConfigs,
    ...(agent.defaultCapability !== undefined ? { defaultCapability: agent.defaultCapability } : {}),
    url: options.url,
    version: options.version,
  });
  const buses = new DefaultExecutionEventBusManager();
  const handler = new AgentRequestHandler(card, agent.taskStore ?? new RetainedTaskStore(options.tasksPerUser), new TaskExecutor(agent, options.runs, buses, options.timeoutMs), buses, agent, options.runs);
  return {
    agentId: agent.id,
    card,
    // The protocol's JSON form (the card's own object carries the SDK's internal shapes).
    cardJson: JSON.stringify(AgentCard.toJSON(card)),
    handler,
    jsonRpc: new JsonRpcTransportHandler(handler),
    legacyJsonRpc: new LegacyJsonRpcTransportHandler(handler),
  };
}

/**
 * The SDK's request handler, with what must be refused before a task exists answered as a
 * JSON-RPC error: a message with nothing to send, and a message to a task that is working
 * (it takes a message only while it asks a question, `input-required`).
 */
class AgentRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    store: TaskStore,
    executor: TaskExecutor,
    buses: DefaultExecutionEventBusManager,
    private readonly agent: A2aAgent,
    private readonly runs: TaskRuns,
  ) {
    super(card, store, executor, buses);
  }

  override sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    this.check(params, context);
    return super.sendMessage(params, context);
  }

  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    this.check(params, context);
    yield* super.sendMessageStream(params, context);
  }

  private check(params: SendMessageRequest, context: ServerCallContext): void {
    const message = params.message;
    if (!message) return;
    const run = message.taskId ? this.runs.get(message.taskId) : undefined;
    if (run) {
      // Another user's task is left to the SDK, which answers "not found" for it.
      if (run.owner === context.user?.userName && !run.isWaitingForInput) {
        throw new UnsupportedOperationError(`task ${run.taskId} is working; it takes a message only while input-required`);
      }
      if (message.parts.length === 0) throw new RequestMalformedError('the message has no parts to answer with');
      return;
    }
    const target = callTargetOf(message, this.agent);
    if ('malformed' in target) throw new RequestMalformedError(target.malformed);
  }
}
