import { open, readFile, type FileHandle } from 'node:fs/promises';
import { selectRecords } from './memory-sink.js';
import type { DlqFilter, DlqRecord, DlqSink } from './record.js';

export interface JsonlDlqSinkOptions {
  readonly path: string;
  /** fsync after every record. Default true: a record the inbox acked for must survive a crash. */
  readonly fsync?: boolean;
}

/**
 * One JSON record per line, appended. Writes are serialized through one promise chain so
 * lines never interleave; a failed write rejects, and the inbox then does not ack the
 * message (the transport redelivers it) — nothing is lost because the DLQ was unavailable.
 */
export class JsonlDlqSink implements DlqSink {
  private handle: Promise<FileHandle> | undefined;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly options: JsonlDlqSinkOptions) {
    if (typeof options.path !== 'string' || options.path.length === 0) throw new TypeError('JsonlDlqSink: path is required');
  }

  write(record: DlqRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const written = this.tail.then(async () => {
      this.handle ??= open(this.options.path, 'a');
      const handle = await this.handle.catch((error: unknown) => {
        this.handle = undefined; // let the next write try to open the file again
        throw error;
      });
      await handle.write(line);
      if (this.options.fsync ?? true) await handle.sync();
    });
    // The writer hears of a failure through `written`; the tail only orders the next write after this one.
    this.tail = written.catch(() => undefined);
    return written;
  }

  async list(filter: DlqFilter = {}): Promise<DlqRecord[]> {
    await this.tail;
    return selectRecords(await this.readAll(), filter);
  }

  async get(id: string): Promise<DlqRecord | undefined> {
    await this.tail;
    return (await this.readAll()).find((r) => r.id === id);
  }

  async close(): Promise<void> {
    await this.tail;
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle).close();
  }

  private async readAll(): Promise<DlqRecord[]> {
    let text: string;
    try {
      text = await readFile(this.options.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // A crash mid-append can leave a partial last line; it is skipped, not fatal.
    const records: DlqRecord[] = [];
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      try {
        records.push(JSON.parse(line) as DlqRecord);
      } catch {
        // A line cut short by a crash mid-write holds no record: the ones around it still count.
      }
    }
    return records;
  }
}
