import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { RetainedTaskStore } from '../../src/a2a/server/retained-task-store.js';
import { TaskFileStore } from '../../src/a2a/server/task-file-store.js';
import { createPinoLogger } from '../../src/observability/pino-logger.js';

const logger = createPinoLogger({ level: 'silent' });
const contextOf = (user: string) => new ServerCallContext({ user: { isAuthenticated: true, userName: user } });
const alice = contextOf('alice');
const bob = contextOf('bob');
const task = (id: string, state: TaskState, second = 0): Task => ({
  id,
  contextId: `ctx-${id}`,
  status: { state, message: undefined, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() },
  artifacts: [{ artifactId: 'result', name: 'result', description: '', parts: [{ content: { $case: 'text', value: `answer of ${id}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [] }],
  history: [{ messageId: `m-${id}`, contextId: `ctx-${id}`, taskId: id, role: Role.ROLE_USER, parts: [{ content: { $case: 'data', value: { n: 1, nested: ['é', null] } }, metadata: undefined, filename: '', mediaType: 'application/json' }], metadata: undefined, extensions: [], referenceTaskIds: [] }],
  metadata: { capability: 'echo' },
});
const files = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.json'));

describe('A2A task file store', () => {
  it('a2a tasks - a finished task reads back the same after reopening, and only by its owner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tasks-'));
    const first = await TaskFileStore.open(dir, 10, logger);
    await first.save(task('t1', TaskState.TASK_STATE_COMPLETED), alice);
    const reopened = await TaskFileStore.open(dir, 10, logger);
    expect(await reopened.load('t1', alice)).toEqual(task('t1', TaskState.TASK_STATE_COMPLETED));
    expect(await reopened.load('t1', bob)).toBeUndefined();
  });

  it('a2a tasks - a task still running when the store was last open is failed (EAGENTRPC_ABANDONED) on opening, and stays failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tasks-'));
    const first = await TaskFileStore.open(dir, 10, logger);
    await first.save(task('working', TaskState.TASK_STATE_WORKING), alice);
    await first.save(task('asking', TaskState.TASK_STATE_INPUT_REQUIRED), alice);
    for (let open = 0; open < 2; open++) {
      const store = await TaskFileStore.open(dir, 10, logger);
      for (const id of ['working', 'asking']) {
        const read = await store.load(id, alice);
        expect(read?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
        expect(read?.status?.message?.metadata).toEqual({ code: 'EAGENTRPC_ABANDONED' });
        expect(read?.artifacts).toEqual(task(id, TaskState.TASK_STATE_WORKING).artifacts);
      }
    }
  });

  it('a2a tasks - retention deletes the files of the tasks it drops; reopening keeps the newest and their order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tasks-'));
    const store = await TaskFileStore.open(dir, 2, logger);
    for (let i = 1; i <= 5; i++) await store.save(task(`t${i}`, TaskState.TASK_STATE_COMPLETED, i), alice);
    await store.save(task('b1', TaskState.TASK_STATE_COMPLETED), bob);
    await store.flush();
    expect(files(dir)).toHaveLength(4);
    const reopened = await TaskFileStore.open(dir, 2, logger);
    const ids = async (context: ServerCallContext) => Promise.all(['t1', 't2', 't3', 't4', 't5', 'b1'].map(async (id) => (await reopened.load(id, context))?.id));
    expect(await ids(alice)).toEqual([undefined, undefined, 't3', 't4', 't5', undefined]);
    expect(await ids(bob)).toEqual([undefined, undefined, undefined, undefined, undefined, 'b1']);
    // Two more of alice's after the reopen drop the generation of t3 and t4, as without a restart.
    await reopened.save(task('t6', TaskState.TASK_STATE_COMPLETED, 6), alice);
    await reopened.save(task('t7', TaskState.TASK_STATE_COMPLETED, 7), alice);
    await reopened.flush();
    expect(await ids(alice)).toEqual([undefined, undefined, undefined, undefined, 't5', undefined]);
    expect(files(dir)).toHaveLength(4);
  });

  it('a2a tasks - an unreadable file is skipped and reported; the others open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tasks-'));
    const first = await TaskFileStore.open(dir, 10, logger);
    await first.save(task('t1', TaskState.TASK_STATE_COMPLETED), alice);
    writeFileSync(join(dir, 'broken.json'), '{"version":1,');
    const reported: unknown[] = [];
    const reportingLogger = { ...logger, error: (fields: unknown) => reported.push(fields) } as typeof logger;
    const store = await TaskFileStore.open(dir, 10, reportingLogger);
    expect((await store.load('t1', alice))?.id).toBe('t1');
    expect(reported).toEqual([expect.objectContaining({ file: join(dir, 'broken.json') })]);
  });
});

describe('A2A retained task store - dropped tasks', () => {
  it('a2a tasks - the ids of a dropped generation are reported, except those saved again since', async () => {
    const dropped: string[][] = [];
    const store = new RetainedTaskStore(2, (ids) => dropped.push([...ids]));
    for (const id of ['t1', 't2', 't3', 't1', 't4', 't5']) await store.save(task(id, TaskState.TASK_STATE_COMPLETED), alice);
    // t1 and t2 went with the first generation, but t1 was saved again into the next.
    expect(dropped).toEqual([['t2']]);
  });
});
