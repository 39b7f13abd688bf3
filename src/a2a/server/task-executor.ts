import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { AgentExecutor, ExecutionEventBus, ExecutionEventBusManager, RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import { newMessageId } from '../../envelope/index.js';
import { formatReplyTo } from '../../transport.js';
import type { InboundPort } from '../../rpc/index.js';
import { A2A_CALLER, A2A_TASK_HEADER, A2A_USER_HEADER } from './a2a-names.js';
import { callTargetOf } from './a2a-parts.js';
import { callerContextOf } from './caller-context.js';
import { agentMessage, newTaskEvent, statusEvent } from './task-events.js';
import { dataPart, textPart } from '../index.js';
import { TaskRun } from './task-run.js';
import type { TaskRuns } from './task-runs.js';

export interface A2aAgent {
  readonly port: InboundPort;
  readonly capabilities: ReadonlySet<string>;
  readonly defaultCapability?: string;
}

/**
 * The SDK's executor for one agent: a task's first message becomes a request envelope,
 * signed in the agent's own name and handed to its inbound port (auth, guard, dedupe,
 * audit and DLQ apply, as for broker traffic); a later message answers the task's pending
 * question. Every execution returns at the task's next stop (terminal or input-required).
 */
export class TaskExecutor implements AgentExecutor {
  constructor(
    private readonly agent: A2aAgent,
    private readonly runs: TaskRuns,
    private readonly buses: ExecutionEventBusManager,
    private readonly timeoutMs: number,
  ) {}

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = context.userMessage;
    const existing = this.runs.get(context.taskId);
    if (existing) return this.untilStop(existing, context.context, existing.resume(message, context.task, bus));
    const address = { taskId: context.taskId, contextId: context.contextId };
    const target = callTargetOf(message, this.agent);
    if ('malformed' in target) throw new RequestMalformedError(target.malformed);
    const caller = callerContextOf(message, Date.now() + this.timeoutMs);
    if ('malformed' in caller) throw new RequestMalformedError(caller.malformed);
    const owner = context.context.user?.userName ?? '';
    bus.publish(newTaskEvent(address, message, 'capability' in target ? { capability: target.capability } : {}));
    if ('code' in target) {
      const error = { code: target.code, message: target.reason, retriable: false };
      bus.publish(statusEvent(address, TaskState.TASK_STATE_FAILED, agentMessage(address, [textPart(`${error.code}: ${error.message}`), dataPart({ error })], { code: error.code }), { code: error.code }));
      return;
    }
    const requestId = newMessageId();
    const run = new TaskRun(bus, { ...address, owner, port: this.agent.port, requestId, onEnd: (ended) => this.runs.delete(ended) });
    this.runs.add(run);
    bus.publish(statusEvent(address, TaskState.TASK_STATE_WORKING));
    const body = this.agent.port.signOwnRequest({
      messageId: requestId,
      from: A2A_CALLER,
      capability: target.capability,
      payload: target.payload,
      replyTo: formatReplyTo('http', `a2a.${context.taskId}`),
      deadline: caller.deadline,
      headers: { [A2A_TASK_HEADER]: context.taskId, [A2A_USER_HEADER]: owner, ...caller.headers },
      ...(caller.correlationId === undefined ? {} : { correlationId: caller.correlationId }),
      ...(caller.causedBy === undefined ? {} : { causedBy: caller.causedBy }),
    });
    void run.run(body);
    return this.untilStop(run, context.context, run.nextStop());
  }

  /** Counts the execution waiting on `run` until its next stop; remembers a call context of the task's owner. */
  private async untilStop(run: TaskRun, context: ServerCallContext, stop: Promise<void>): Promise<void> {
    run.callContext ??= context;
    run.executions++;
    try {
      await stop;
    } finally {
      run.executions--;
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.runs.get(taskId);
    if (run) {
      run.cancel(bus);
      // Cancelled while it waited for input: no execution returns to settle the bus, so it is settled here.
      // (Events already published still reach the queue that listens for this cancellation.)
      if (run.executions === 0 && run.callContext) {
        bus.finished();
        this.buses.cleanupByTaskId(taskId, run.callContext);
      }
      return;
    }
    // No live request (it ended as this call came in): the SDK needs a canceled status to answer.
    const task = { taskId, contextId: '' };
    bus.publish(statusEvent(task, TaskState.TASK_STATE_CANCELED, agentMessage(task, [textPart('cancelled by the client')])));
  }
}
