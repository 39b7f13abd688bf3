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
 * A test A2A agent built with the SDK's server (express on loopback), three skills on its
 * card: `summarize` reports two status updates, then an artifact (the word count of its input,
 * as data) and completes; `explode` fails with a status message; `slow` works until it
 * is canceled. Unlisted: `ask` stops in input-required (its execution ends), `ask-open`
 * stops in input-required and stays on the task until it is canceled; `stepwise` streams
 * `step 1`, `step 2`, ends the stream with the task still working, and then goes on in its
 * task store, one step each time a `GetTask` for it has been answered: `step 3`, `step 4`,
 * then completed with the artifact `{steps: 4}`. `streaming` sets the card's `capabilities.streaming`; with `token`, every
 * request (the card included) must carry it as a bearer token, else it is answered 401;
 * the first `cardFailures` requests for the card are answered 503.
 */
export async function startA2aTestAgent(options: { streaming: boolean; name?: string; token?: string; cardFailures?: number }): Promise<A2aTestAgent> {
  const record: A2aAgentRecord = { messages: [], canceled: [], slowTasks: [], authorizations: [] };
  const waiters = { cancel: [] as Array<(id: string) => void>, slow: [] as Array<(id: string) => void> };
  const stopped = new Map<string, () => void>();
  const contexts = new Map<string, RequestContext['context']>();
  const contextIds = new Map<string, string>();

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context;
      contexts.set(taskId, context.context);
      contextIds.set(taskId, contextId);
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
      } else if (skill === 'ask-open') {
        status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which language?');
        await new Promise<void>((resolve) => stopped.set(taskId, resolve));
        status(TaskState.TASK_STATE_CANCELED, 'canceled by the client');
      } else if (skill === 'stepwise') {
        status(TaskState.TASK_STATE_WORKING, 'step 1');
        status(TaskState.TASK_STATE_WORKING, 'step 2');
        const read = nextPoll(taskId);
        bus.finished();
        void goOnInStore(taskId, read);
        return;
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
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      record.canceled.push(taskId);
      waiters.cancel.splice(0).forEach((w) => w(taskId));
      const stop = stopped.get(taskId);
      if (stop) return stop();
      // A task no execution runs any more (one that stopped in input-required): canceled here.
      const contextId = contextIds.get(taskId) ?? '';
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_CANCELED, message: agentMessage(taskId, contextId, 'canceled by the client'), timestamp: new Date().toISOString() }, metadata: undefined }));
      bus.finished();
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
  const polled = new Map<string, Array<() => void>>();
  /** Resolves once the next `GetTask` for the task has been answered. */
  const nextPoll = (taskId: string): Promise<void> => new Promise((resolve) => polled.set(taskId, [...(polled.get(taskId) ?? []), resolve]));
  /** `stepwise` after its stream: each read of the task (a poll) moves it one step on. */
  const goOnInStore = async (taskId: string, firstRead: Promise<void>): Promise<void> => {
    const context = contexts.get(taskId)!;
    let read = firstRead;
    for (const step of ['step 3', 'step 4', undefined]) {
      await read;
      const task = (await store.load(taskId, context))!;
      read = nextPoll(taskId);
      const state = step === undefined ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_WORKING;
      task.status = { state, message: step === undefined ? undefined : agentMessage(taskId, task.contextId, step), timestamp: new Date().toISOString() };
      if (step === undefined) task.artifacts = [{ artifactId: 'steps', name: 'steps', description: '', parts: [{ content: { $case: 'data', value: { steps: 4 } }, metadata: undefined, filename: '', mediaType: 'application/json' }], metadata: undefined, extensions: [] }];
      await store.save(task, context);
    }
  };
  const handler = new DefaultRequestHandler(card, store, executor);
  let cardFailures = options.cardFailures ?? 0;
  app.use('/.well-known/agent-card.json', (_req, res, next) => (cardFailures-- > 0 ? void res.status(503).end() : next()));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card }));
  app.use('/a2a/jsonrpc', (req, _res, next) => {
    record.authorizations.push(req.headers.authorization ?? '');
    next();
  });
  app.use('/a2a/jsonrpc', express.json(), (req, res, next) => {
    const body = req.body as { method?: unknown; params?: { id?: unknown } } | undefined;
    const taskId = body?.method === 'GetTask' && typeof body.params?.id === 'string' ? body.params.id : undefined;
    if (taskId !== undefined) {
      res.once('finish', () => {
        const waiting = polled.get(taskId) ?? [];
        polled.delete(taskId);
        for (const resolve of waiting) resolve();
      });
    }
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
