import { createHash } from 'node:crypto';
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { Logger } from '../../logger.js';
import { JsonFileStore } from '../../http-server/index.js';
import { dataPart, textPart } from '../index.js';
import { RetainedTaskStore } from './retained-task-store.js';
import { agentMessage, TERMINAL_STATES } from './task-events.js';

/** One task as its file holds it: whose it is, when it was last saved, and the task in the protocol's JSON form. */
interface TaskFile {
  readonly version: 1;
  /** Order of saves across restarts: replaying files in this order rebuilds the retention. */
  readonly seq: number;
  readonly tenant: string;
  readonly user: string;
  readonly task: unknown;
}

const RESTARTED = { code: 'EAGENTRPC_ABANDONED', message: 'the agent restarted while this task ran', retriable: true };

/** A file name no client input can steer: a digest of the owner and the task id. */
function fileNameOf(tenant: string, user: string, taskId: string): string {
  return createHash('sha256').update(`${tenant}\u0000${user}\u0000${taskId}`).digest('hex').slice(0, 40);
}

function ownerOf(context: ServerCallContext): { tenant: string; user: string } {
  return { tenant: context.tenant ?? '', user: context.user?.userName ?? '' };
}

/**
 * An agent's A2A tasks kept on disk, so a client can still read a task after the agent
 * restarts: one JSON file per task (see JsonFileStore), rewritten on every change. Reads
 * and retention are the in-memory RetainedTaskStore's; a task it drops loses its file.
 * Opening fails every task that was not finished: its run died with the process, and a
 * client polling it must not wait for ever.
 */
export class TaskFileStore implements TaskStore {
  private readonly retained: RetainedTaskStore;
  private seq = 0;

  private constructor(
    private readonly files: JsonFileStore<TaskFile>,
    private readonly logger: Logger,
    perGeneration: number,
  ) {
    this.retained = new RetainedTaskStore(perGeneration, (taskIds, context) => this.forget(taskIds, context));
  }

  static async open(dir: string, perGeneration: number, logger: Logger): Promise<TaskFileStore> {
    const files = await JsonFileStore.open<TaskFile>(dir, (record) => fileNameOf(record.tenant, record.user, (record.task as { id: string }).id));
    const store = new TaskFileStore(files, logger, perGeneration);
    const records = await files.loadAll((file, error) => logger.error({ err: error, file }, 'unreadable A2A task file skipped'));
    records.sort((a, b) => a.seq - b.seq);
    for (const record of records) await store.restore(record);
    return store;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.retained.save(task, context);
    await this.files.save({ version: 1, seq: ++this.seq, ...ownerOf(context), task: Task.toJSON(task) });
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.retained.load(taskId, context);
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.retained.list(params, context);
  }

  /** Resolves when every file write started so far is on disk. */
  flush(): Promise<void> {
    return this.files.flush();
  }

  private async restore(record: TaskFile): Promise<void> {
    this.seq = Math.max(this.seq, record.seq);
    let task: Task;
    try {
      task = Task.fromJSON(record.task);
    } catch (error) {
      this.logger.error({ err: error, seq: record.seq }, 'unreadable A2A task skipped');
      return;
    }
    const context = new ServerCallContext({ tenant: record.tenant || undefined, user: { isAuthenticated: true, userName: record.user } });
    if (task.status && TERMINAL_STATES.has(task.status.state)) return this.retained.save(task, context);
    const address = { taskId: task.id, contextId: task.contextId };
    const message = agentMessage(address, [textPart(`${RESTARTED.code}: ${RESTARTED.message}`), dataPart({ error: RESTARTED })], { code: RESTARTED.code });
    await this.save({ ...task, status: { state: TaskState.TASK_STATE_FAILED, message, timestamp: new Date().toISOString() } }, context);
  }

  private forget(taskIds: readonly string[], context: ServerCallContext): void {
    const { tenant, user } = ownerOf(context);
    for (const taskId of taskIds) {
      this.files.delete(fileNameOf(tenant, user, taskId)).catch((error: unknown) => this.logger.warn({ err: error, taskId }, 'could not delete a dropped A2A task file'));
    }
  }
}
