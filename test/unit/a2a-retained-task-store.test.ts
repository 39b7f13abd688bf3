import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { RetainedTaskStore } from '../../src/a2a/server/retained-task-store.js';

const contextOf = (user: string) => new ServerCallContext({ user: { isAuthenticated: true, userName: user } });
const task = (id: string, second = 0): Task => ({
  id,
  contextId: 'c',
  status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() },
  artifacts: [],
  history: [],
  metadata: undefined,
});
const listAll = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };

describe('A2A retained task store', () => {
  it('a2a tasks - the newest tasks of a user are kept, the oldest generation is dropped', async () => {
    const store = new RetainedTaskStore(2);
    const alice = contextOf('alice');
    for (const [index, id] of ['t1', 't2', 't3'].entries()) await store.save(task(id, index), alice);
    expect((await store.load('t1', alice))?.id).toBe('t1');
    expect((await store.list(listAll, alice)).tasks.map((t) => t.id)).toEqual(['t3', 't2', 't1']);
    await store.save(task('t4', 4), alice);
    await store.save(task('t5', 5), alice);
    expect(await store.load('t1', alice)).toBeUndefined();
    expect(await store.load('t2', alice)).toBeUndefined();
    expect((await store.list(listAll, alice)).tasks.map((t) => t.id)).toEqual(['t5', 't4', 't3']);
  });

  it('a2a tasks - a task saved again moves to the current generation; users do not share tasks', async () => {
    const store = new RetainedTaskStore(2);
    const alice = contextOf('alice');
    await store.save(task('old'), alice);
    await store.save(task('t2'), alice);
    await store.save(task('t3'), alice);
    await store.save(task('old', 9), alice);
    await store.save(task('t4'), alice);
    await store.save(task('t5'), alice);
    expect((await store.load('old', alice))?.status?.timestamp).toBe(task('old', 9).status?.timestamp);
    expect(await store.load('old', contextOf('bob'))).toBeUndefined();
    expect((await store.list(listAll, contextOf('bob'))).tasks).toEqual([]);
    expect(() => new RetainedTaskStore(0)).toThrow(RangeError);
  });
});
