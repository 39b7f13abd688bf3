import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';

/** Tasks of one user: the generation being written, and the one before it. */
interface Generations {
  current: InMemoryTaskStore;
  previous: InMemoryTaskStore | undefined;
  /** Distinct tasks saved into `current`. */
  saved: Set<string>;
  /** Distinct tasks saved into `previous`. */
  previousSaved: Set<string>;
}

/** Hears the ids of tasks a user's oldest generation took with it (none saved since). */
export type DroppedTasks = (taskIds: readonly string[], context: ServerCallContext) => void;

/**
 * The SDK's in-memory task store, bounded per user: tasks are kept in two generations of
 * `perGeneration` tasks each; when the current one is full it becomes the previous one and
 * the oldest generation is dropped. A task saved again (every event of a running task saves
 * it) moves to the current generation, so at least the newest `perGeneration` tasks of each
 * user are kept, and never more than twice that.
 */
export class RetainedTaskStore implements TaskStore {
  private readonly owners = new Map<string, Generations>();

  constructor(
    private readonly perGeneration: number,
    private readonly onDrop?: DroppedTasks,
  ) {
    if (!Number.isInteger(perGeneration) || perGeneration < 1) throw new RangeError('RetainedTaskStore: perGeneration must be a positive integer');
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const owner = this.of(context);
    if (!owner.saved.has(task.id) && owner.saved.size >= this.perGeneration) {
      // Synchronous, so no save of another request lands in a generation being dropped.
      const dropped = owner.previousSaved;
      owner.previous = owner.current;
      owner.previousSaved = owner.saved;
      owner.current = new InMemoryTaskStore();
      owner.saved = new Set();
      // A task saved again since lives on in the newer generation.
      const gone = [...dropped].filter((id) => !owner.previousSaved.has(id));
      if (gone.length > 0) this.onDrop?.(gone, context);
    }
    owner.saved.add(task.id);
    await owner.current.save(task, context);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const owner = this.of(context);
    return (await owner.current.load(taskId, context)) ?? (await owner.previous?.load(taskId, context));
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const owner = this.of(context);
    if (!owner.previous) return owner.current.list(params, context);
    // Both generations, merged for this listing (the newer copy of a task wins); listing is rare.
    const merged = new InMemoryTaskStore();
    for (const store of [owner.previous, owner.current]) for (const task of await everyTask(store, context)) await merged.save(task, context);
    return merged.list(params, context);
  }

  private of(context: ServerCallContext): Generations {
    const key = `${context.tenant ?? ''}\u0000${context.user?.userName ?? ''}`;
    let owner = this.owners.get(key);
    if (!owner) {
      owner = { current: new InMemoryTaskStore(), previous: undefined, saved: new Set(), previousSaved: new Set() };
      this.owners.set(key, owner);
    }
    return owner;
  }
}

async function everyTask(store: InMemoryTaskStore, context: ServerCallContext): Promise<Task[]> {
  const tasks: Task[] = [];
  let pageToken = '';
  do {
    const page = await store.list({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 100, pageToken, statusTimestampAfter: undefined, includeArtifacts: true }, context);
    tasks.push(...page.tasks);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return tasks;
}
