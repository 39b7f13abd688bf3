import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/** What the test agent saw, for assertions: the messages it was sent and the tasks canceled on it. */
export interface A2aAgentRecord {
  readonly messages: Message[];
  readonly canceled: string[];
  /** The task ids of `slow` runs, as they start. */
  readonly slowTasks: string[];
  /** The Authorization header of each JSON-RPC request ('' when none). */
  readonly authorizations: string[];
}

export interface A2aTestAgent {
  readonly baseUrl: string;
  readonly store: InMemoryTaskStore;
  readonly record: A2aAgentRecord;
  /** Resolves with the id of the next task canceled on the agent. */
  nextCancel(): Promise<string>;
  /** The task's state in the agent's task store (as its own request handler reads it). */
  taskState(taskId: string): Promise<TaskState | undefined>;
  /** Resolves with the id of the next `slow` task, once it runs. */
  nextSlow(): Promise<string>;
  close(): Promise<void>;
}

function text(value: string): Message['parts'][number] {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(taskId: string, contextId: string, value: string): Message {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/**
 * A test A2A agent built with the SDK's server (express on loopback), three skills:
 * `summarize` reports two status updates, then an artifact (the word count of its input,
 * as data) and completes; `explode` fails with a status message; `slow` works until it
 * is canceled. `streaming` sets the card's `capabilities.streaming`; with `token`, every
 * request (the card included) must carry it as a bearer token, else it is answered 401;
 * the first `cardFailures` requests for the card are answered 503.
 */
export async function startA2aTestAgent(options: { streaming: boolean; name?: string; token?: string; cardFailures?: number }): Promise<A2aTestAgent> {
  const record: A2aAgentRecord = { messages: [], canceled: [], slowTasks: [], authorizations: [] };
  const waiters = { cancel: [] as Array<(id: string) => void>, slow: [] as Array<(id: string) => void> };
  const stopped = new Map<string, () => void>();
  const contexts = new Map<string, RequestContext['context']>();

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context;
      contexts.set(taskId, context.context);
      const message = context.userMessage;
      record.messages.push(message);
      const skill = String(message.metadata?.['skillId'] ?? 'summarize');
      const task: Task = { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [message], metadata: undefined };
      bus.publish(AgentEvent.task(task));
      const status = (state: TaskState, note?: string): void =>
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: note === undefined ? undefined : agentMessage(taskId, contextId, note), timestamp: new Date().toISOString() }, metadata: undefined }));
      if (skill === 'explode') {
        status(TaskState.TASK_STATE_FAILED, 'the summarizer exploded');
      } else if (skill === 'slow') {
        status(TaskState.TASK_STATE_WORKING, 'thinking slowly');
        record.slowTasks.push(taskId);
        waiters.slow.splice(0).forEach((w) => w(taskId));
        await new Promise<void>((resolve) => stopped.set(taskId, resolve));
        status(TaskState.TASK_STATE_CANCELED, 'canceled by the client');
      } else if (skill === 'ask') {
        status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which language?');
      } else {
        const input = message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : JSON.stringify(p.content?.value))).join(' ');
        status(TaskState.TASK_STATE_WORKING, 'reading');
        status(TaskState.TASK_STATE_WORKING, 'counting');
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: 'summary', name: 'summary', description: '', parts: [{ content: { $case: 'data', value: { words: input.split(/\s+/).filter(Boolean).length, skill } }, metadata: undefined, filename: '', mediaType: 'application/json' }], metadata: undefined, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        status(TaskState.TASK_STATE_COMPLETED);
      }
      bus.finished();
    },
    async cancelTask(taskId: string) {
      record.canceled.push(taskId);
      waiters.cancel.splice(0).forEach((w) => w(taskId));
      stopped.get(taskId)?.();
    },
  };

  const app = express();
  if (options.token !== undefined) {
    const expected = `Bearer ${options.token}`;
    app.use((req, res, next) => (req.headers.authorization === expected ? next() : void res.status(401).json({ error: 'unauthorized' })));
  }
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: options.name ?? 'summarizer',
    description: 'Summarizes text.',
    supportedInterfaces: [{ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      { id: 'summarize', name: 'Summarize', description: 'Counts the words of a text.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
      { id: 'explode', name: 'Explode', description: 'Always fails.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
      { id: 'slow', name: 'Slow', description: 'Works until canceled.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    ],
    signatures: [],
  };
  const store = new InMemoryTaskStore();
  const handler = new DefaultRequestHandler(card, store, executor);
  let cardFailures = options.cardFailures ?? 0;
  app.use('/.well-known/agent-card.json', (_req, res, next) => (cardFailures-- > 0 ? void res.status(503).end() : next()));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card }));
  app.use('/a2a/jsonrpc', (req, _res, next) => {
    record.authorizations.push(req.headers.authorization ?? '');
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

  return {
    baseUrl,
    store,
    record,
    nextCancel: () => new Promise((resolve) => waiters.cancel.push(resolve)),
    taskState: async (taskId) => {
      const context = contexts.get(taskId);
      return context === undefined ? undefined : (await store.load(taskId, context))?.status?.state;
    },
    nextSlow: () => new Promise((resolve) => waiters.slow.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const stop of stopped.values()) stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
