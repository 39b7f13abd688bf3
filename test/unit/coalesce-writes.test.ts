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

describe('coalesceWrites', () => {
  it('coalesceWrites - what one turn of the event loop writes leaves in one write, in order', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    stream.write('a');
    stream.write('b');
    await Promise.resolve();
    stream.write('c'); // a microtask of the same turn
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('coalesceWrites - writes of later turns are gathered per turn; a lone write leaves alone', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    stream.write('1');
    await nextTurn();
    stream.write('2');
    stream.write('3');
    await nextTurn();
    expect(calls).toEqual([['1'], ['2', '3']]);
  });

  it('coalesceWrites - the library corking and uncorking itself does not flush early', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    for (const frame of ['m1', 'm2']) {
      stream.cork();
      stream.write(frame);
      stream.uncork();
    }
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual([['m1', 'm2']]);
  });

  it('coalesceWrites - back-pressure still reaches the writer: past the high-water mark write says wait, drain follows the flush', async () => {
    const { stream, calls } = recordingStream(4);
    coalesceWrites(stream);
    expect(stream.write('ab')).toBe(true);
    expect(stream.write('cdef')).toBe(false);
    const drained = new Promise<void>((resolve) => stream.once('drain', resolve));
    await nextTurn();
    await drained;
    expect(calls).toEqual([['ab', 'cdef']]);
  });

  it('coalesceWrites - end() sends what is held; wrapping twice adds no second hold', async () => {
    const { stream, calls } = recordingStream();
    coalesceWrites(stream);
    coalesceWrites(stream);
    stream.write('x');
    const finished = new Promise<void>((resolve) => stream.once('finish', resolve));
    stream.end('y');
    await finished;
    expect(calls.flat()).toEqual(['x', 'y']);
    await nextTurn();
    expect(stream.writableCorked).toBe(0);
  });
});
