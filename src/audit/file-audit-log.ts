import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { RpcError } from '../errors.js';
import { writeFileAtomically } from '../files/index.js';
import type { Logger } from '../logger.js';
import type { AuditEntry, AuditLog } from './audit-log.js';
import { GENESIS_HASH, hashRecord, headPathOf, parseRecord, sha256Hex, type AuditHead } from './audit-record.js';
import { resumeChain } from './resume-chain.js';
import { auditSegmentPath } from './audit-segments.js';
import { planAuditRetention, type AuditRetention, type AuditRotation } from './audit-retention.js';
import { readFirstLine, writeLines } from './jsonl-lines.js';
import { checkFileAuditLogOptions, type AuditFsyncPolicy, type FileAuditLogOptions } from './file-audit-log-options.js';

/** The longest the head file lags behind the durable records while nobody waits on a flush (default of `headEveryMs`). */
const HEAD_EVERY_MS = 1_000;

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Append-only, hash-chained audit log, one JSON record per line (format: audit-record.ts).
 *
 * `append` never waits and never touches the disk: the record is chained at once (file
 * order is append order) and queued. A single writer drains the queue in batches — group
 * commit: everything queued while one batch is on its way to disk becomes the next batch,
 * written with one write and (fsync 'batch') one fdatasync. The head file, replaced
 * atomically (writeFileAtomically: write, sync, rename, directory sync), moves on at
 * once when a `flush()` caller waits and otherwise at most once every `headEveryMs`: under
 * a steady stream of appends it was as costly as the batches themselves, and a head that
 * lags is what a crash can leave anyway (verify accepts it; it never runs ahead of synced
 * records).
 *
 * A crash loses only records not yet flushed: the batch in flight and what is queued. A
 * crash in the middle of a write leaves a cut last line, which `open` refuses to chain
 * onto. A write error is never thrown at `append`: it is logged, the partial write is cut
 * back, and the log stops — later appends are dropped and every `flush()`/`close()`
 * rejects with the error; open the file again to resume from the last durable record.
 */
export class FileAuditLog implements AuditLog {
  private queue: string[] = [];
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;
  private closing = false;
  /** seq of the last record appended, of the last one durable, and of the one the head file names. */
  private appendedSeq: number;
  private durableSeq: number;
  private headSeq: number;
  /** The hash of the last durable record: what the head file names next. */
  private durableHash: string;
  /** When the head file last moved on (clock ms), and the timer that moves it after appends stop. */
  private headWrittenAt = 0;
  private headTimer: NodeJS.Timeout | undefined;
  /** The timer ran out with the head behind: the next drain moves it whatever the clock says. */
  private headDue = false;
  private headEveryMs = HEAD_EVERY_MS;
  /** Segments retention removes once the `audit_retention` record saying so is durable. */
  private pendingRemoval: { readonly files: readonly string[]; readonly afterSeq: number } | undefined;
  private exclude: ReadonlySet<string> | undefined;
  private rotate: AuditRotation | undefined;
  private retain: AuditRetention | undefined;
  /** seq of the first record of the file being written, and the time it was appended. */
  private segmentFirstSeq = 0;
  private segmentStartedAt: number | undefined;
  /** A segment was closed since retention last looked. */
  private retentionDue = false;
  /** Bytes in the file being written, durable or not (`size` counts the durable ones). */
  private written: number;

  private constructor(
    private file: FileHandle,
    private readonly path: string,
    private readonly fsync: AuditFsyncPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger | undefined,
    private nextSeq: number,
    private prevLineHash: string,
    private lastHash: string,
    /** Bytes of the file up to the last durable batch: where a failed batch is cut back to. */
    private size: number,
  ) {
    this.appendedSeq = nextSeq - 1;
    this.durableSeq = nextSeq - 1;
    this.headSeq = nextSeq - 1;
    this.durableHash = lastHash;
    this.segmentFirstSeq = nextSeq;
    this.written = size;
  }

  private configure(options: FileAuditLogOptions, first: { seq: number; at: number } | undefined): this {
    this.exclude = options.exclude && options.exclude.length > 0 ? new Set(options.exclude) : undefined;
    this.rotate = options.rotate;
    this.retain = options.retain;
    this.headEveryMs = options.headEveryMs ?? HEAD_EVERY_MS;
    if (first !== undefined) {
      this.segmentFirstSeq = first.seq;
      this.segmentStartedAt = first.at;
    }
    return this;
  }

  /**
   * Opens (or creates) the log and resumes its chain from the last record. Refuses, with an
   * Error naming the file and line, a cut last line (a torn write), a last record that does
   * not match its hash, and a log shorter than its head file says.
   */
  static async open(options: FileAuditLogOptions): Promise<FileAuditLog> {
    const fsync = checkFileAuditLogOptions(options);
    const resumed = await resumeChain(options.path);
    const file = await open(options.path, 'a');
    const clock = options.clock ?? systemClock;
    const { nextSeq, prevLineHash, lastHash, size } = resumed ?? { nextSeq: 0, prevLineHash: GENESIS_HASH, lastHash: GENESIS_HASH, size: 0 };
    const firstLine = size > 0 ? await readFirstLine(options.path) : undefined;
    const firstRecord = firstLine === undefined ? undefined : parseRecord(firstLine.toString('utf8'));
    const first = firstRecord === undefined ? undefined : { seq: firstRecord.seq, at: Date.parse(firstRecord.at) };
    return new FileAuditLog(file, options.path, fsync, clock, options.logger, nextSeq, prevLineHash, lastHash, size).configure(options, first);
  }

  append(entry: AuditEntry): void {
    if (this.closing) throw new RpcError('EAGENTRPC_AUDIT_CLOSED', `audit log ${this.path} is closed`, { details: { path: this.path } });
    if (typeof entry !== 'object' || entry === null || typeof entry.kind !== 'string' || entry.kind.length === 0) {
      throw new TypeError('FileAuditLog.append: entry.kind must be a non-empty string');
    }
    // A broken log records nothing more; the failure is reported by flush() and close().
    if (this.failure) return;
    const exclude = this.exclude;
    if (exclude !== undefined && (exclude.has(entry.kind) || (typeof entry['decision'] === 'string' && exclude.has(`${entry.kind}.${entry['decision']}`)))) return;
    this.chain(entry);
  }

  private chain(entry: AuditEntry): void {
    // The chain's own fields come from the log, never from the entry.
    const { seq: _seq, at: _at, prev: _prev, hash: _hash, kind, ...fields } = entry;
    const now = this.clock.now();
    const unhashed = { seq: this.nextSeq, at: new Date(now).toISOString(), kind, ...fields, prev: this.prevLineHash };
    // Throws TypeError (and changes nothing) for values JSON cannot carry.
    const hash = hashRecord(unhashed);
    const line = JSON.stringify({ ...unhashed, hash });
    this.appendedSeq = this.nextSeq++;
    this.prevLineHash = sha256Hex(line);
    this.lastHash = hash;
    this.queue.push(`${line}\n`);
    this.segmentStartedAt ??= now;
    this.writing ??= this.drain();
  }

  /** Resolves when every record appended before the call is on disk (fsynced under 'batch') and named by the head file. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.appendedSeq;
    if (seq <= this.headSeq) return Promise.resolve();
    // Waits for its own records only, so a steady stream of appends cannot starve it.
    const waiting = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    // Its records may be durable already, with the head lagging: a drain moves the head.
    this.writing ??= this.drain();
    return waiting;
  }

  /** Flushes, then closes the file; rejects with a write failure, the file closed all the same. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      await this.flush();
    } finally {
      await this.writing;
      clearTimeout(this.headTimer);
      await this.file.close();
    }
  }

  private async drain(): Promise<void> {
    // Appends made in the same turn as the first one join its batch.
    await Promise.resolve();
    try {
      while (!this.failure) {
        const headWanted = this.waiters.length > 0 || this.headDue;
        if (this.queue.length > 0) await this.writeBatch();
        else if (!headWanted || this.headSeq === this.durableSeq) break;
        if (this.headSeq < this.durableSeq && (headWanted || this.clock.now() - this.headWrittenAt >= this.headEveryMs)) await this.moveHead();
        const removal = this.pendingRemoval;
        if (removal !== undefined && this.durableSeq >= removal.afterSeq) await this.removeSegments(removal.files);
        if (this.retentionDue && this.pendingRemoval === undefined) await this.planRetention();
      }
    } catch (error) {
      await this.fail(error);
    } finally {
      this.writing = undefined;
    }
    if (!this.failure && this.headSeq < this.durableSeq) this.headTimer ??= setTimeout(() => this.headLater(), this.headEveryMs).unref();
  }

  /** The records queued, written (and synced under 'batch') as one batch. */
  private async writeBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    // Taken now: appends made while this batch is written belong to the next one.
    const seq = this.appendedSeq;
    const hash = this.lastHash;
    // The queue holds the records after the last durable one, in seq order.
    const firstSeq = this.durableSeq + 1;
    let from = 0;
    while (from < batch.length) {
      if (this.rotationDue()) await this.rotateSegment(firstSeq + from);
      const to = this.pieceEnd(batch, from);
      this.written += await writeLines(this.file, batch.slice(from, to), this.path);
      from = to;
      // A segment is synced before it is closed; the last piece is synced below.
      if (from < batch.length && this.fsync === 'batch' && this.rotationDue()) await this.file.datasync();
    }
    if (this.fsync === 'batch') await this.file.datasync();
    this.size = this.written;
    this.durableSeq = seq;
    this.durableHash = hash;
  }

  /** The head file names the last durable record; flush() callers waiting for it are released. */
  private async moveHead(): Promise<void> {
    const head: AuditHead = { seq: this.durableSeq, hash: this.durableHash };
    await this.writeHead(head);
    this.headSeq = head.seq;
    this.headWrittenAt = this.clock.now();
    this.headDue = false;
    this.release(head.seq);
  }

  /** Appends stopped with the head behind: a drain moves it now (one on its way sees the flag). */
  private headLater(): void {
    this.headTimer = undefined;
    if (this.closing) return;
    this.headDue = true;
    this.writing ??= this.drain();
  }

  /** Where the lines written from `from` on stop: where the file reaches rotate.maxBytes (one line at least). */
  private pieceEnd(batch: readonly string[], from: number): number {
    const maxBytes = this.rotate?.maxBytes;
    if (maxBytes === undefined) return batch.length;
    let to = from;
    let bytes = this.written;
    while (to < batch.length && (to === from || bytes < maxBytes)) bytes += batch[to++]!.length;
    return to;
  }

  private rotationDue(): boolean {
    const rotate = this.rotate;
    if (rotate === undefined || this.written === 0) return false;
    if (rotate.maxBytes !== undefined && this.written >= rotate.maxBytes) return true;
    return rotate.maxAgeMs !== undefined && this.segmentStartedAt !== undefined && this.clock.now() - this.segmentStartedAt >= rotate.maxAgeMs;
  }

  /**
   * Closes the file as the segment `<path>.<first seq>` and starts a new one; the records
   * queued go to the new file, the first of them linking to the segment's last. A crash
   * between the rename and the next write leaves no `<path>`: opening resumes from the segment.
   */
  private async rotateSegment(nextFirstSeq: number): Promise<void> {
    await this.file.close();
    await rename(this.path, auditSegmentPath(this.path, this.segmentFirstSeq));
    this.file = await open(this.path, 'a');
    this.size = 0;
    this.written = 0;
    this.segmentFirstSeq = nextFirstSeq;
    this.segmentStartedAt = this.clock.now();
    this.retentionDue = this.retain !== undefined;
  }

  /** After a rotation: which closed segments go. Said in the chain first; the files go once that record is durable. */
  private async planRetention(): Promise<void> {
    this.retentionDue = false;
    const plan = await planAuditRetention(this.path, this.retain!, this.clock.now(), this.segmentFirstSeq);
    if (plan === undefined) return;
    this.chain(plan.record);
    this.pendingRemoval = { files: plan.remove, afterSeq: this.appendedSeq };
  }

  private async removeSegments(files: readonly string[]): Promise<void> {
    this.pendingRemoval = undefined;
    for (const file of files) {
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    this.logger?.info({ path: this.path, removed: files.map((file) => basename(file)) }, `audit retention removed ${files.length} closed segment(s)`);
  }

  /**
   * Replaced atomically: the head file is always a whole, earlier-or-current head. Under
   * 'batch' it is synced after the records it names, so it never runs ahead of synced data.
   */
  private async writeHead(head: AuditHead): Promise<void> {
    await writeFileAtomically(headPathOf(this.path), JSON.stringify(head), { durable: this.fsync === 'batch' });
  }

  private release(durableSeq: number): void {
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= durableSeq) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private async fail(error: unknown): Promise<void> {
    const failure = new RpcError('EAGENTRPC_AUDIT_WRITE_FAILED', `audit log ${this.path}: write failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      details: { path: this.path },
    });
    this.failure = failure;
    const dropped = this.appendedSeq - this.durableSeq;
    this.queue = [];
    // Cut the failed batch off (it may be half written), so reopening resumes cleanly.
    const cutBack = await this.file.truncate(this.size).then(
      () => true,
      () => false,
    );
    this.logger?.error({ err: error, path: this.path, dropped, cutBack }, 'audit log write failed; records are dropped until the log is reopened');
    for (const waiter of this.waiters) waiter.reject(failure);
    this.waiters = [];
  }
}
