import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { systemClock, type Clock } from '../clock.js';
import { positiveInteger } from '../check-integer.js';
import type { Logger } from '../logger.js';
import { selectRecords } from './memory-sink.js';
import type { DlqFilter, DlqRecord, DlqSink } from './record.js';
import { countFile, dlqFiles, dlqSegmentPath, listDlqSegments, type DlqSegment } from './dlq-segments.js';

/** Bounds of a JSONL DLQ: the oldest records go first once any is passed. */
export interface DlqRetention {
  /** Records kept. */
  readonly maxRecords?: number;
  /** Bytes kept, all files together. */
  readonly maxBytes?: number;
  /** A record is dropped once it is this old (ms). */
  readonly maxAgeMs?: number;
}

/** Why records were dropped: the bound that was passed. */
export type DlqDropReason = 'records' | 'bytes' | 'age';

export interface JsonlDlqSinkOptions {
  readonly path: string;
  /** fsync after every record. Default true: a record the inbox acked for must survive a crash. */
  readonly fsync?: boolean;
  /** Bounds of the DLQ. Default: none (the daemon passes agent.yaml `dlq.retain`, which has bounding defaults). */
  readonly retain?: DlqRetention;
  readonly clock?: Clock;
  /** Told (warn) each time retention drops records. */
  readonly logger?: Logger;
  /** Hears how many records retention dropped, and why. */
  readonly onDropped?: (reason: DlqDropReason, records: number) => void;
}

/** A bound is kept in 4 segments: dropping the oldest keeps at least 3/4 of what the bound allows. */
const SEGMENTS_PER_BOUND = 4;

interface Active {
  records: number;
  bytes: number;
  /** ms of the first record written to the file, undefined while it is empty. */
  oldestAt: number | undefined;
  /** ms of the last record written to it. */
  newestAt: number;
}

/**
 * One JSON record per line, appended. Writes are serialized through one promise chain so
 * lines never interleave; a failed write rejects, and the inbox then does not ack the
 * message (the transport redelivers it) — nothing is lost because the DLQ was unavailable.
 *
 * With `retain`, the file is rotated (renamed `<path>.<number>`) when it holds a quarter
 * of a bound, and the oldest rotated files are deleted while the records, the bytes or the
 * age of what is kept pass a bound. Listing reads the rotated files and the file, oldest first.
 */
export class JsonlDlqSink implements DlqSink {
  private handle: Promise<FileHandle> | undefined;
  private tail: Promise<void> = Promise.resolve();
  private segments: DlqSegment[] | undefined;
  private active: Active = { records: 0, bytes: 0, oldestAt: undefined, newestAt: 0 };
  private readonly clock: Clock;

  constructor(private readonly options: JsonlDlqSinkOptions) {
    if (typeof options.path !== 'string' || options.path.length === 0) throw new TypeError('JsonlDlqSink: path is required');
    const retain = options.retain;
    if (retain !== undefined) {
      if (typeof retain !== 'object' || retain === null) throw new TypeError('JsonlDlqSink: retain must be an object');
      if (retain.maxRecords !== undefined) positiveInteger(retain.maxRecords, 'JsonlDlqSink: retain.maxRecords');
      if (retain.maxBytes !== undefined) positiveInteger(retain.maxBytes, 'JsonlDlqSink: retain.maxBytes');
      if (retain.maxAgeMs !== undefined) positiveInteger(retain.maxAgeMs, 'JsonlDlqSink: retain.maxAgeMs');
    }
    this.clock = options.clock ?? systemClock;
  }

  write(record: DlqRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const written = this.tail.then(async () => {
      if (this.options.retain !== undefined) await this.beforeWrite();
      this.handle ??= open(this.options.path, 'a');
      const handle = await this.handle.catch((error: unknown) => {
        this.handle = undefined; // let the next write try to open the file again
        throw error;
      });
      await handle.write(line);
      if (this.options.fsync ?? true) await handle.sync();
      this.active.records++;
      this.active.bytes += Buffer.byteLength(line);
      this.active.newestAt = this.clock.now();
      this.active.oldestAt ??= this.active.newestAt;
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

  /** Rotates a full file and drops what passed a bound, before the next record is written. */
  private async beforeWrite(): Promise<void> {
    const retain = this.options.retain!;
    if (this.segments === undefined) {
      this.segments = await listDlqSegments(this.options.path);
      const counted = await countFile(this.options.path);
      if (counted && counted.records > 0) {
        const first = await this.firstRecordAt();
        this.active = { records: counted.records, bytes: counted.bytes, oldestAt: first ?? counted.newestAt, newestAt: counted.newestAt };
      }
    }
    const now = this.clock.now();
    const full =
      (retain.maxRecords !== undefined && this.active.records >= Math.ceil(retain.maxRecords / SEGMENTS_PER_BOUND)) ||
      (retain.maxBytes !== undefined && this.active.bytes >= Math.ceil(retain.maxBytes / SEGMENTS_PER_BOUND)) ||
      (retain.maxAgeMs !== undefined && this.active.oldestAt !== undefined && now - this.active.oldestAt >= Math.ceil(retain.maxAgeMs / SEGMENTS_PER_BOUND));
    if (full && this.active.records > 0) await this.rotate();
    await this.drop(now);
  }

  private async rotate(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle).close();
    const segments = this.segments!;
    const number = (segments.at(-1)?.number ?? 0) + 1;
    const path = dlqSegmentPath(this.options.path, number);
    await rename(this.options.path, path);
    segments.push({ path, number, records: this.active.records, bytes: this.active.bytes, newestAt: this.active.newestAt });
    this.active = { records: 0, bytes: 0, oldestAt: undefined, newestAt: 0 };
  }

  /** Deletes the oldest rotated files while a bound is passed (the file being written is never deleted). */
  private async drop(now: number): Promise<void> {
    const retain = this.options.retain!;
    const segments = this.segments!;
    for (;;) {
      const oldest = segments[0];
      if (oldest === undefined) return;
      let records = this.active.records;
      let bytes = this.active.bytes;
      for (const segment of segments) {
        records += segment.records;
        bytes += segment.bytes;
      }
      // Room for the record about to be written.
      const reason: DlqDropReason | undefined =
        retain.maxAgeMs !== undefined && now - oldest.newestAt > retain.maxAgeMs
          ? 'age'
          : retain.maxRecords !== undefined && records + 1 > retain.maxRecords
            ? 'records'
            : retain.maxBytes !== undefined && bytes > retain.maxBytes
              ? 'bytes'
              : undefined;
      if (reason === undefined) return;
      await unlink(oldest.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      segments.shift();
      this.options.onDropped?.(reason, oldest.records);
      this.options.logger?.warn(
        { path: oldest.path, dropped: oldest.records, bytes: oldest.bytes, reason, retain },
        `DLQ retention dropped the ${oldest.records} oldest records (${reason} bound passed)`,
      );
    }
  }

  private async firstRecordAt(): Promise<number | undefined> {
    const text = await readFile(this.options.path, 'utf8');
    const first = text.slice(0, text.indexOf('\n'));
    try {
      const at = (JSON.parse(first) as Partial<DlqRecord>).at;
      return typeof at === 'number' ? at : undefined;
    } catch {
      return undefined;
    }
  }

  private async readAll(): Promise<DlqRecord[]> {
    // A file renamed by a rotation in another process (the daemon, while the CLI reads) is read again under its new name.
    for (let attempt = 1; ; attempt++) {
      const records = await this.readFiles(attempt < 3);
      if (records !== undefined) return records;
    }
  }

  /** Undefined when a file went away while reading and `retry` is allowed. */
  private async readFiles(retry: boolean): Promise<DlqRecord[] | undefined> {
    const records: DlqRecord[] = [];
    for (const path of await dlqFiles(this.options.path)) {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // Renamed or dropped meanwhile, or (the file itself) not written yet: the last attempt takes what it finds.
        if (retry) return undefined;
        continue;
      }
      // A crash mid-append can leave a partial last line; it is skipped, not fatal.
      for (const line of text.split('\n')) {
        if (line.length === 0) continue;
        try {
          records.push(JSON.parse(line) as DlqRecord);
        } catch {
          // A line cut short by a crash mid-write holds no record: the ones around it still count.
        }
      }
    }
    return records;
  }
}
