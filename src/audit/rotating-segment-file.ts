import { open, rename, type FileHandle } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { parseRecord } from './audit-record.js';
import type { AuditRotation } from './audit-retention.js';
import { auditSegmentPath } from './audit-segments.js';
import type { AuditFsyncPolicy } from './file-audit-log-options.js';
import { readFirstLine, writeLines } from './jsonl-lines.js';

export interface RotatingSegmentFileOptions {
  readonly path: string;
  readonly fsync: AuditFsyncPolicy;
  readonly clock: Clock;
  readonly rotate: AuditRotation | undefined;
  /** Bytes of the file already there (all durable), and the seq the next record gets. */
  readonly size: number;
  readonly nextSeq: number;
  /** Told each time the file is closed as a segment (retention looks then). */
  readonly onSegmentClosed: () => void;
}

/**
 * The file an audit log appends to, `<path>`, closed as the segment `<path>.<first seq>`
 * when `rotate` says so (format: audit-segments.ts). It knows how many of its bytes are
 * durable, so that a failed batch can be cut back to them.
 */
export class RotatingSegmentFile {
  /** Bytes in the file being written, durable or not (`durableBytes` counts the durable ones). */
  private written: number;
  /** Bytes of the file up to the last durable batch: where a failed batch is cut back to. */
  private durableBytes: number;
  /** seq of the first record of the file being written, and the time it was appended. */
  private segmentFirstSeq: number;
  private segmentStartedAt: number | undefined;

  private constructor(
    private file: FileHandle,
    private readonly options: RotatingSegmentFileOptions,
    first: { seq: number; at: number } | undefined,
  ) {
    this.written = options.size;
    this.durableBytes = options.size;
    this.segmentFirstSeq = first?.seq ?? options.nextSeq;
    this.segmentStartedAt = first?.at;
  }

  /** Opens `<path>` for appending; the age of the segment counts from its first record. */
  static async open(options: RotatingSegmentFileOptions): Promise<RotatingSegmentFile> {
    const file = await open(options.path, 'a');
    const firstLine = options.size > 0 ? await readFirstLine(options.path) : undefined;
    const firstRecord = firstLine === undefined ? undefined : parseRecord(firstLine.toString('utf8'));
    const first = firstRecord === undefined ? undefined : { seq: firstRecord.seq, at: Date.parse(firstRecord.at) };
    return new RotatingSegmentFile(file, options, first);
  }

  /** seq of the first record of the file being written. */
  get firstSeq(): number {
    return this.segmentFirstSeq;
  }

  /** A record was appended at `now`: a new segment's age starts with its first record. */
  appended(now: number): void {
    this.segmentStartedAt ??= now;
  }

  /**
   * Writes one batch, the records `firstSeq` on, closing segments on the way where rotate
   * says so; under 'batch' every closed segment and the batch's last piece are synced.
   */
  async writeBatch(batch: readonly string[], firstSeq: number): Promise<void> {
    const { path, fsync } = this.options;
    let from = 0;
    while (from < batch.length) {
      if (this.rotationDue()) await this.rotateSegment(firstSeq + from);
      const to = this.pieceEnd(batch, from);
      this.written += await writeLines(this.file, batch.slice(from, to), path);
      from = to;
      // A segment is synced before it is closed; the last piece is synced below.
      if (from < batch.length && fsync === 'batch' && this.rotationDue()) await this.file.datasync();
    }
    if (fsync === 'batch') await this.file.datasync();
    this.durableBytes = this.written;
  }

  /** Cuts the file back to its durable bytes (a failed batch may be half written); false when that failed too. */
  cutBack(): Promise<boolean> {
    return this.file.truncate(this.durableBytes).then(
      () => true,
      () => false,
    );
  }

  close(): Promise<void> {
    return this.file.close();
  }

  /** Where the lines written from `from` on stop: where the file reaches rotate.maxBytes (one line at least). */
  private pieceEnd(batch: readonly string[], from: number): number {
    const maxBytes = this.options.rotate?.maxBytes;
    if (maxBytes === undefined) return batch.length;
    let to = from;
    let bytes = this.written;
    while (to < batch.length && (to === from || bytes < maxBytes)) bytes += batch[to++]!.length;
    return to;
  }

  private rotationDue(): boolean {
    const rotate = this.options.rotate;
    if (rotate === undefined || this.written === 0) return false;
    if (rotate.maxBytes !== undefined && this.written >= rotate.maxBytes) return true;
    return rotate.maxAgeMs !== undefined && this.segmentStartedAt !== undefined && this.options.clock.now() - this.segmentStartedAt >= rotate.maxAgeMs;
  }

  /**
   * Closes the file as the segment `<path>.<first seq>` and starts a new one; the records
   * queued go to the new file, the first of them linking to the segment's last. A crash
   * between the rename and the next write leaves no `<path>`: opening resumes from the segment.
   */
  private async rotateSegment(nextFirstSeq: number): Promise<void> {
    const { path, clock } = this.options;
    await this.file.close();
    await rename(path, auditSegmentPath(path, this.segmentFirstSeq));
    this.file = await open(path, 'a');
    this.durableBytes = 0;
    this.written = 0;
    this.segmentFirstSeq = nextFirstSeq;
    this.segmentStartedAt = clock.now();
    this.options.onSegmentClosed();
  }
}
