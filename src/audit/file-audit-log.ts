import { systemClock, type Clock } from '../clock.js';
import { RpcError } from '../errors.js';
import { writeFileAtomically } from '../files/index.js';
import type { Logger } from '../logger.js';
import type { AuditEntry, AuditLog } from './audit-log.js';
import { GENESIS_HASH, hashRecord, headPathOf, sha256Hex, type AuditHead } from './audit-record.js';
import { checkFileAuditLogOptions, type AuditFsyncPolicy, type FileAuditLogOptions } from './file-audit-log-options.js';
import { FlushWaiters } from './flush-waiters.js';
import { resumeChain } from './resume-chain.js';
import { RotatingSegmentFile } from './rotating-segment-file.js';
import { SegmentRetention, type RetainedLog } from './segment-retention.js';

/** The longest the head file lags behind the durable records while nobody waits on a flush (default of `headEveryMs`). */
const HEAD_EVERY_MS = 1_000;

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
 *
 * Rotation (rotating-segment-file.ts) and retention (segment-retention.ts) are steps of the
 * same single writer, so they never race a batch or the head file.
 */
export class FileAuditLog implements AuditLog {
  private queue: string[] = [];
  private readonly waiters = new FlushWaiters();
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
  private readonly headEveryMs: number;
  private readonly exclude: ReadonlySet<string> | undefined;
  /** How retention sees this log: the file being written, and the chain (never `append`: no exclusion, no closed check). */
  private readonly retainedLog: RetainedLog;

  private constructor(
    private readonly file: RotatingSegmentFile,
    private readonly retention: SegmentRetention,
    private readonly path: string,
    private readonly fsync: AuditFsyncPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger | undefined,
    options: FileAuditLogOptions,
    private nextSeq: number,
    private prevLineHash: string,
    private lastHash: string,
  ) {
    this.appendedSeq = nextSeq - 1;
    this.durableSeq = nextSeq - 1;
    this.headSeq = nextSeq - 1;
    this.durableHash = lastHash;
    this.exclude = options.exclude && options.exclude.length > 0 ? new Set(options.exclude) : undefined;
    this.headEveryMs = options.headEveryMs ?? HEAD_EVERY_MS;
    this.retainedLog = {
      get activeFirstSeq() {
        return file.firstSeq;
      },
      chain: (entry) => this.chain(entry),
    };
  }

  /**
   * Opens (or creates) the log and resumes its chain from the last record. Refuses, with an
   * Error naming the file and line, a cut last line (a torn write), a last record that does
   * not match its hash, and a log shorter than its head file says.
   */
  static async open(options: FileAuditLogOptions): Promise<FileAuditLog> {
    const fsync = checkFileAuditLogOptions(options);
    const resumed = await resumeChain(options.path);
    const clock = options.clock ?? systemClock;
    const { nextSeq, prevLineHash, lastHash, size } = resumed ?? { nextSeq: 0, prevLineHash: GENESIS_HASH, lastHash: GENESIS_HASH, size: 0 };
    const retention = new SegmentRetention(options.path, options.retain, clock, options.logger);
    const file = await RotatingSegmentFile.open({ path: options.path, fsync, clock, rotate: options.rotate, size, nextSeq, onSegmentClosed: () => retention.segmentClosed() });
    return new FileAuditLog(file, retention, options.path, fsync, clock, options.logger, options, nextSeq, prevLineHash, lastHash);
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

  /** Chains the entry and queues its line; returns its seq. */
  private chain(entry: AuditEntry): number {
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
    this.file.appended(now);
    this.writing ??= this.drain();
    return this.appendedSeq;
  }

  /** Resolves when every record appended before the call is on disk (fsynced under 'batch') and named by the head file. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.appendedSeq;
    if (seq <= this.headSeq) return Promise.resolve();
    // Waits for its own records only, so a steady stream of appends cannot starve it.
    const waiting = this.waiters.waitFor(seq);
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
        const headWanted = this.waiters.any || this.headDue;
        if (this.queue.length > 0) await this.writeBatch();
        else if (!headWanted || this.headSeq === this.durableSeq) break;
        if (this.headSeq < this.durableSeq && (headWanted || this.clock.now() - this.headWrittenAt >= this.headEveryMs)) await this.moveHead();
        // Checked first so that a log without retention work awaits nothing more per step.
        if (this.retention.workDue(this.durableSeq)) await this.retention.afterWrite(this.durableSeq, this.retainedLog);
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
    await this.file.writeBatch(batch, this.durableSeq + 1);
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
    this.waiters.release(head.seq);
  }

  /** Appends stopped with the head behind: a drain moves it now (one on its way sees the flag). */
  private headLater(): void {
    this.headTimer = undefined;
    if (this.closing) return;
    this.headDue = true;
    this.writing ??= this.drain();
  }

  /**
   * Replaced atomically: the head file is always a whole, earlier-or-current head. Under
   * 'batch' it is synced after the records it names, so it never runs ahead of synced data.
   */
  private async writeHead(head: AuditHead): Promise<void> {
    await writeFileAtomically(headPathOf(this.path), JSON.stringify(head), { durable: this.fsync === 'batch' });
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
    const cutBack = await this.file.cutBack();
    this.logger?.error({ err: error, path: this.path, dropped, cutBack }, 'audit log write failed; records are dropped until the log is reopened');
    this.waiters.rejectAll(failure);
  }
}
