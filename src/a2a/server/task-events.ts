import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';

/** Where a task's events go: the task, its context, and the bus of the request now attached. */
export interface TaskAddress {
  readonly taskId: string;
  readonly contextId: string;
}

/** The states at which a request's execution stops: the caller has an answer or is asked for one. */
export const STOP_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED, TaskState.TASK_STATE_INPUT_REQUIRED]);
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

export function agentMessage(task: TaskAddress, parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId: task.contextId, taskId: task.taskId, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

export function newTaskEvent(task: TaskAddress, userMessage: Message, metadata: Record<string, unknown>): AgentExecutionEvent {
  const data: Task = {
    id: task.taskId,
    contextId: task.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [userMessage],
    metadata,
  };
  return AgentEvent.task(data);
}

export function statusEvent(task: TaskAddress, state: TaskState, message?: Message, metadata?: Record<string, unknown>): AgentExecutionEvent {
  return AgentEvent.statusUpdate({ taskId: task.taskId, contextId: task.contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata });
}

/** The final result, as the task's one artifact `result`. */
export function resultEvent(task: TaskAddress, parts: Part[]): AgentExecutionEvent {
  return AgentEvent.artifactUpdate({
    taskId: task.taskId,
    contextId: task.contextId,
    artifact: { artifactId: 'result', name: 'result', description: 'The final response of the capability.', parts, metadata: undefined, extensions: [] },
    append: false,
    lastChunk: true,
    metadata: undefined,
  });
}
