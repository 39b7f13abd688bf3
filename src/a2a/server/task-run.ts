import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus, type ServerCallContext } from '@a2a-js/sdk/server';
import { toRpcError, type WireError } from '../../errors.js';
import type { ApprovalAnswer, ApprovalPrompt, InboundPort, InboundReply } from '../../rpc/index.js';
import { dataPart, textOf, textPart } from '../index.js';
import { resultParts } from './a2a-parts.js';
import { agentMessage, resultEvent, statusEvent, STOP_STATES, TERMINAL_STATES, type TaskAddress } from './task-events.js';

export interface TaskRunOptions extends TaskAddress {
  /** The user the task belongs to (an API token's user). */
  readonly owner: string;
  readonly port: InboundPort;
  /** The messageId of the request envelope the task runs. */
  readonly requestId: string;
  /** Called once the task has reached a terminal state. */
  readonly onEnd: (run: TaskRun) => void;
}

/** Replies to an approval question that decline it; anything else answers it (approved). */
const DECLINING = /^\s*(no|n|deny|denied|decline|declined|reject|rejected|cancel)\s*[.!]?\s*$/i;

/**
 * One A2A task: one request envelope in an agent's inbox, from the first message until a
 * terminal state. Its replies become the task's events on the bus of the A2A request now
 * attached to it (the first message's, then each answering message's): progress → status
 * `working`, the final result → the `result` artifact and `completed`, an error → `failed`
 * with the code, an approval question → `input-required` until the next message answers it.
 */
export class TaskRun implements TaskAddress {
  readonly taskId: string;
  readonly contextId: string;
  readonly owner: string;
  readonly requestId: string;
  private state: TaskState = TaskState.TASK_STATE_WORKING;
  private stopWaiters: Array<() => void> = [];
  private answer: ((answer: ApprovalAnswer) => void) | undefined;
  private prompts: Promise<unknown> = Promise.resolve();

  constructor(
    private bus: ExecutionEventBus,
    private readonly options: TaskRunOptions,
  ) {
    this.taskId = options.taskId;
    this.contextId = options.contextId;
    this.owner = options.owner;
    this.requestId = options.requestId;
  }

  /** Executions (A2A requests) now waiting on this task; with none, nobody else settles its bus. */
  executions = 0;
  /** A call context of the owner's, to find the task's event bus (the SDK keeps buses per user). */
  callContext: ServerCallContext | undefined;

  get isWaitingForInput(): boolean {
    return this.answer !== undefined;
  }

  /** Resolves at the next state an A2A request stops at: terminal, or input-required. */
  nextStop(): Promise<void> {
    if (STOP_STATES.has(this.state)) return Promise.resolve();
    return new Promise((resolve) => this.stopWaiters.push(resolve));
  }

  /** Hands the request to the agent's inbox and turns its replies into task events. */
  async run(body: Promise<Uint8Array>): Promise<void> {
    try {
      await this.options.port.deliver({ body: await body, deliveryId: this.taskId, onReply: (reply) => this.onReply(reply) });
      // Settled without a final answer: the inbox refused the request silently (it is in the DLQ).
      if (!TERMINAL_STATES.has(this.state)) this.fail({ code: 'EAGENTRPC_HANDLER_FAILED', message: 'the request was not dispatched; see the node DLQ', retriable: false });
    } catch (error) {
      const failure = toRpcError(error);
      this.fail({ code: failure.code, message: failure.message, retriable: failure.retriable });
    }
  }

  /** A handler's approval question: the task waits in `input-required` until the next message answers it. */
  ask(prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    // One question at a time; a second waits for the first's answer.
    const asked = this.prompts.then(() => this.askNow(prompt));
    this.prompts = asked.catch(() => undefined);
    return asked;
  }

  /**
   * A follow-up message to this task, on the bus of its own A2A request: it answers the
   * pending question (a data part `{approved, answer}`, or text: declining words decline,
   * any other text approves and is the answer). Resolves at the next stop.
   */
  resume(message: Message, task: Task | undefined, bus: ExecutionEventBus): Promise<void> {
    this.bus = bus;
    // The SDK wants a task (or message) first on every request's stream.
    if (task) this.publish(AgentEvent.task(task));
    const answer = this.answer;
    if (answer && !TERMINAL_STATES.has(this.state)) {
      this.answer = undefined;
      this.setState(TaskState.TASK_STATE_WORKING);
      answer(answerOf(message));
    }
    return this.nextStop();
  }

  /** The node is shutting down: a pending question is declined (reason `closing`), so the handler can finish within the drain. */
  declineQuestion(): void {
    const answer = this.answer;
    if (!answer) return;
    this.answer = undefined;
    this.setState(TaskState.TASK_STATE_WORKING);
    answer({ approved: false, cancelled: true, reason: 'closing' });
  }

  /** Cancels the task: `canceled` now, the handler's signal aborts, a pending question is declined. */
  cancel(bus: ExecutionEventBus): void {
    this.bus = bus;
    if (TERMINAL_STATES.has(this.state)) return;
    this.end(TaskState.TASK_STATE_CANCELED, agentMessage(this, [textPart('cancelled by the client')]));
    this.options.port.cancel(this.requestId, 'the A2A task was cancelled');
  }

  private askNow(prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    if (TERMINAL_STATES.has(this.state)) return Promise.resolve({ approved: false, cancelled: true, reason: 'session-ended' });
    return new Promise((resolve) => {
      this.answer = resolve;
      const question = agentMessage(this, [textPart(prompt.question), dataPart({ approval: { type: prompt.type, question: prompt.question } })], { approvalType: prompt.type });
      this.setState(TaskState.TASK_STATE_INPUT_REQUIRED, question);
    });
  }

  private onReply(reply: InboundReply): void {
    if (TERMINAL_STATES.has(this.state)) return;
    const payload = reply.payload;
    if (payload?.ok && payload.progress) {
      // A question for the caller up the chain does not arise here: this node's gate answers it.
      if (payload.approval) return;
      this.setState(TaskState.TASK_STATE_WORKING, agentMessage(this, resultParts(payload.data), { progress: true }));
      return;
    }
    if (payload?.ok) {
      this.publish(resultEvent(this, resultParts(payload.data)));
      this.end(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    this.fail(payload ? payload.error : { code: 'EAGENTRPC_INVALID_RESPONSE', message: 'the agent answered without a result', retriable: false });
  }

  private fail(error: WireError): void {
    if (TERMINAL_STATES.has(this.state)) return;
    const message = agentMessage(this, [textPart(`${error.code}: ${error.message}`), dataPart({ error })], { code: error.code });
    this.end(TaskState.TASK_STATE_FAILED, message, { code: error.code });
  }

  private end(state: TaskState, message?: Message, metadata?: Record<string, unknown>): void {
    const answer = this.answer;
    this.answer = undefined;
    this.setState(state, message, metadata);
    answer?.({ approved: false, cancelled: true, reason: 'session-ended' });
    this.options.onEnd(this);
  }

  private setState(state: TaskState, message?: Message, metadata?: Record<string, unknown>): void {
    this.state = state;
    this.publish(statusEvent(this, state, message, metadata));
    if (!STOP_STATES.has(state)) return;
    const waiters = this.stopWaiters;
    this.stopWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private publish(event: Parameters<ExecutionEventBus['publish']>[0]): void {
    this.bus.publish(event);
  }
}

function answerOf(message: Message): ApprovalAnswer {
  for (const part of message.parts) {
    const value: unknown = part.content?.$case === 'data' ? part.content.value : undefined;
    if (typeof value === 'object' && value !== null && typeof (value as { approved?: unknown }).approved === 'boolean') {
      const { approved, answer } = value as { approved: boolean; answer?: unknown };
      return { approved, cancelled: false, ...(typeof answer === 'string' ? { answer } : {}) };
    }
  }
  const text = textOf(message) ?? '';
  return DECLINING.test(text) ? { approved: false, cancelled: false, answer: text } : { approved: true, cancelled: false, answer: text };
}
