import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { RpcError } from '../errors.js';

const NEWLINE = 0x0a;

/**
 * Streams a file as lines of raw bytes (without the "\n"), a chunk at a time, so a log of
 * any size is read in bounded memory. Bytes, not strings: the chain hashes a line's exact
 * bytes, and readline would hide a "\r" or an invalid UTF-8 sequence.
 *
 * `batches()` yields the complete lines of each chunk; afterwards `tail` holds what came
 * after the last "\n" (a cut line), if anything.
 */
export class JsonlLines {
  tail: Buffer | undefined;

  constructor(
    private readonly path: string,
    private readonly chunkSize = 1 << 20,
  ) {}

  async *batches(): AsyncGenerator<Buffer[]> {
    let carry: Buffer[] = [];
    for await (const chunk of createReadStream(this.path, { highWaterMark: this.chunkSize }) as AsyncIterable<Buffer>) {
      const lines: Buffer[] = [];
      let start = 0;
      let end = chunk.indexOf(NEWLINE, start);
      while (end !== -1) {
        if (carry.length > 0) {
          carry.push(chunk.subarray(start, end));
          lines.push(Buffer.concat(carry));
          carry = [];
        } else {
          lines.push(chunk.subarray(start, end));
        }
        start = end + 1;
        end = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length) carry.push(chunk.subarray(start));
      if (lines.length > 0) yield lines;
    }
    this.tail = carry.length > 0 ? Buffer.concat(carry) : undefined;
  }
}

/** How many "\n" the file holds; used only to name a line in an error message. */
export async function countNewlines(path: string): Promise<number> {
  let count = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) count++;
  }
  return count;
}

/** The end of a file: its last complete line and whatever follows it (a cut line). */
export interface FileEnd {
  /** The last "\n"-terminated line, without the "\n"; undefined when there is none. */
  readonly lastLine: Buffer | undefined;
  /** Bytes after the last "\n"; empty when the file ends with one. */
  readonly rest: Buffer;
}

/** Reads backwards from the end, a block at a time, until the last complete line is whole. */
export async function readFileEnd(path: string, size: number, block = 64 * 1024): Promise<FileEnd> {
  const handle = await open(path, 'r');
  try {
    let buffer = Buffer.alloc(0);
    let position = size;
    for (;;) {
      const length = Math.min(block, position);
      position -= length;
      const { buffer: read } = await handle.read(Buffer.alloc(length), 0, length, position);
      buffer = Buffer.concat([read, buffer]);
      const lastNewline = buffer.lastIndexOf(NEWLINE);
      // The last complete line starts after the "\n" before lastNewline (or at the file start).
      const before = lastNewline <= 0 ? -1 : buffer.lastIndexOf(NEWLINE, lastNewline - 1);
      if (lastNewline !== -1 && (before !== -1 || position === 0)) {
        return { lastLine: buffer.subarray(before + 1, lastNewline), rest: buffer.subarray(lastNewline + 1) };
      }
      if (position === 0) return { lastLine: undefined, rest: buffer };
    }
  } finally {
    await handle.close();
  }
}

/** The first line of a file, without its "\n"; undefined when the file holds no complete line. */
export async function readFirstLine(path: string, block = 64 * 1024): Promise<Buffer | undefined> {
  const handle = await open(path, 'r');
  try {
    let buffer = Buffer.alloc(0);
    for (;;) {
      const { buffer: read, bytesRead } = await handle.read(Buffer.alloc(block), 0, block, buffer.length);
      if (bytesRead === 0) return undefined;
      buffer = Buffer.concat([buffer, read.subarray(0, bytesRead)]);
      const newline = buffer.indexOf(NEWLINE);
      if (newline !== -1) return buffer.subarray(0, newline);
    }
  } finally {
    await handle.close();
  }
}

/** One write call stays below this, so a long queue does not become one giant string. */
const MAX_WRITE_BYTES = 4 * 1024 * 1024;

/** Appends the lines to the log `path` open as `file`, in order; returns the bytes written. */
export async function writeLines(file: FileHandle, lines: readonly string[], path: string): Promise<number> {
  let written = 0;
  let from = 0;
  while (from < lines.length) {
    let to = from;
    let bytes = 0;
    while (to < lines.length && (to === from || bytes + lines[to]!.length <= MAX_WRITE_BYTES)) bytes += lines[to++]!.length;
    const data = Buffer.from(lines.slice(from, to).join(''));
    // write(2) may write less than asked (e.g. a full disk); carry on from there.
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await file.write(data, offset, data.length - offset);
      if (bytesWritten === 0) throw new RpcError('EAGENTRPC_AUDIT_WRITE_FAILED', `audit log ${path}: write made no progress`, { details: { path } });
      offset += bytesWritten;
    }
    written += data.length;
    from = to;
  }
  return written;
}
