import type { AgentRpcEnvelope } from '../../envelope/index.js';
import type { ApprovalAnswer, ApprovalGate, ApprovalPrompt } from '../../rpc/index.js';
import type { TaskRun } from './task-run.js';

/**
 * The A2A tasks running in this process, by task id and by the id of the request envelope
 * each runs; also the approval gate of those requests (a question puts the task in
 * `input-required`), in front of the gate that answers every other request.
 */
export class TaskRuns {
  private readonly byTask = new Map<string, TaskRun>();
  private readonly byRequest = new Map<string, TaskRun>();

  get(taskId: string): TaskRun | undefined {
    return this.byTask.get(taskId);
  }

  add(run: TaskRun): void {
    this.byTask.set(run.taskId, run);
    this.byRequest.set(run.requestId, run);
  }

  delete(run: TaskRun): void {
    if (this.byTask.get(run.taskId) === run) this.byTask.delete(run.taskId);
    if (this.byRequest.get(run.requestId) === run) this.byRequest.delete(run.requestId);
  }

  /** The node is shutting down: every pending question is declined, so handlers can finish within the drain. */
  declineQuestions(): void {
    for (const run of this.byTask.values()) run.declineQuestion();
  }

  /** An approval gate that asks A2A tasks' clients and hands every other request to `others`. */
  gateOver(others: ApprovalGate): ApprovalGate {
    return {
      request: (request: AgentRpcEnvelope, prompt: ApprovalPrompt): Promise<ApprovalAnswer> => {
        const run = this.byRequest.get(request.messageId);
        return run ? run.ask(prompt) : others.request(request, prompt);
      },
    };
  }
}
