import { describe, expect, it } from 'vitest';
import { gate } from '../../src/testing/wait.js';
import { OffsetCommitter } from '../../transports/kafka/offset-committer.js';

type Offsets = Array<{ topic: string; partition: number; offset: string }>;

/** A committer whose commits are recorded and, while `hold` is set, wait for it. */
function recording(intervalMs: number) {
  const commits: Offsets[] = [];
  const failures: unknown[] = [];
  let hold: Promise<void> | undefined;
  let fail = false;
  const committer = new OffsetCommitter({
    topic: 't',
    intervalMs,
    commit: async (offsets) => {
      commits.push(offsets);
      if (hold) await hold;
      if (fail) throw new Error('rebalanced');
    },
    onFailure: (error) => failures.push(error),
  });
  return {
    committer,
    commits,
    failures,
    holdWith: (promise: Promise<void> | undefined) => {
      hold = promise;
    },
    failNext: (value: boolean) => (fail = value),
  };
}

describe('kafka - offset committer', () => {
  it('kafka - commits nothing before the consumer runs; then one request with the newest offset per partition', async () => {
    const { committer, commits } = recording(0);
    committer.set(0, '5');
    committer.set(0, '9');
    committer.set(1, '3');
    expect(commits).toEqual([]);
    committer.resume();
    await committer.flush();
    expect(commits).toEqual([
      [
        { topic: 't', partition: 0, offset: '9' },
        { topic: 't', partition: 1, offset: '3' },
      ],
    ]);
  });

  it('kafka - offsets that advance while a commit is in flight go out together in the next one', async () => {
    const { committer, commits, holdWith } = recording(0);
    const held = gate();
    holdWith(held.promise);
    committer.resume();
    committer.set(0, '1');
    for (let offset = 2; offset <= 100; offset++) committer.set(0, String(offset));
    holdWith(undefined);
    held.open();
    await committer.flush();
    expect(commits.map((c) => c.map((o) => o.offset))).toEqual([['1'], ['100']]);
  });

  it('kafka - with an interval, many advances within it make one commit; flush sends what waits at once', async () => {
    const { committer, commits } = recording(60_000);
    committer.resume();
    committer.set(0, '1');
    await committer.flush();
    for (let offset = 2; offset <= 50; offset++) committer.set(0, String(offset));
    // The interval since the first commit has not passed: nothing goes out by itself.
    expect(commits).toHaveLength(1);
    await committer.flush();
    expect(commits.map((c) => c.map((o) => o.offset))).toEqual([['1'], ['50']]);
  });

  it('kafka - a suspended committer (consumer crashed) holds offsets until resumed; reset drops a past generation', async () => {
    const { committer, commits } = recording(0);
    committer.resume();
    committer.suspend();
    committer.set(0, '7');
    await committer.flush();
    expect(commits).toEqual([]);
    committer.reset();
    committer.set(1, '2');
    committer.resume();
    await committer.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 1, offset: '2' }]]);
  });

  it('kafka - an offset offered again after a failure does not replace a newer one waiting', async () => {
    const { committer, commits } = recording(0);
    committer.set(0, '8');
    committer.setIfAbsent(0, '3');
    committer.setIfAbsent(1, '3');
    committer.resume();
    await committer.flush();
    expect(commits).toEqual([
      [
        { topic: 't', partition: 0, offset: '8' },
        { topic: 't', partition: 1, offset: '3' },
      ],
    ]);
  });

  it('kafka - a failed commit is reported and does not stop later ones', async () => {
    const { committer, commits, failures, failNext } = recording(0);
    committer.resume();
    failNext(true);
    committer.set(0, '1');
    await committer.flush();
    failNext(false);
    committer.set(0, '2');
    await committer.flush();
    expect(failures).toHaveLength(1);
    expect(commits.map((c) => c.map((o) => o.offset))).toEqual([['1'], ['2']]);
  });
});
