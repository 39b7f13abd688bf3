import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalesceWrites } from '../../transports/shared/coalesce-writes.js';

/** A writable that records each write it passes on: one entry per system call a socket would make. */
function recordingStream(highWaterMark = 16 * 1024): { stream: Writable; calls: string[][] } {
  const calls: string[][] = [];
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      calls.push([chunk.toString()]);
      callback();
    },
    writev(chunks, callback) {
      calls.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      callback();
    },
  });
  return { stream, calls };
}

/** Runs `work` as a callback of its own (as a socket read or a timer would), and waits until it and its microtasks are over. */
function inCallback(work: () => void): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => {
      work();
      setImmediate(resolve);
    });
  });
}

describe('coalesceWrites', () => {
  it('coalesceWrites - what one callback and its promise jobs write leaves in one write, in order', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    let heldDuringCallback: string[][] | undefined;
    await inCallback(() => {
      stream.write('a');
      stream.write('b');
      void Promise.resolve()
        .then(() => stream.write('c'))
        .then(() => (heldDuringCallback = [...calls]));
    });
    expect(heldDuringCallback).toEqual([]);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('coalesceWrites - each callback leaves with its own write: nothing waits for the next one', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    await inCallback(() => stream.write('1'));
    expect(calls).toEqual([['1']]);
    await inCallback(() => {
      stream.write('2');
      stream.write('3');
    });
    expect(calls).toEqual([['1'], ['2', '3']]);
  });

  it('coalesceWrites - the library corking and uncorking itself does not flush early', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    let heldAfterFrames: string[][] | undefined;
    await inCallback(() => {
      for (const frame of ['m1', 'm2']) {
        stream.cork();
        stream.write(frame);
        stream.uncork();
      }
      heldAfterFrames = [...calls];
    });
    expect(heldAfterFrames).toEqual([]);
    expect(calls).toEqual([['m1', 'm2']]);
  });

  it('coalesceWrites - back-pressure still reaches the writer: past the high-water mark write says wait, drain follows the flush', async () => {
    const { stream, calls } = recordingStream(4);
    coalesceWrites(stream);
    const answers: boolean[] = [];
    const drained = new Promise<void>((resolve) => stream.once('drain', resolve));
    await inCallback(() => answers.push(stream.write('ab'), stream.write('cdef')));
    await drained;
    expect(answers).toEqual([true, false]);
    expect(calls).toEqual([['ab', 'cdef']]);
  });

  it('coalesceWrites - end() sends what is held; wrapping twice adds no second hold', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    coalesceWrites(stream);
    const finished = new Promise<void>((resolve) => stream.once('finish', resolve));
    stream.write('x');
    stream.end('y');
    await finished;
    expect(calls.flat()).toEqual(['x', 'y']);
    await nextTurn();
    expect(stream.writableCorked).toBe(0);
  });
});
