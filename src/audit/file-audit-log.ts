import { open, rename, type FileHandle } from 'node:fs/promises';
import { systemClock, type Clock } from '../clock.js';
import { RpcError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { AuditEntry, AuditLog } from './audit-log.js';
import { GENESIS_HASH, hashRecord, headPathOf, sha256Hex, type AuditHead } from './audit-record.js';
import { resumeChain } from './resume-chain.js';

export const AUDIT_FSYNC_POLICIES = ['batch', 'none'] as const;
export type AuditFsyncPolicy = (typeof AUDIT_FSYNC_POLICIES)[number];

export interface FileAuditLogOptions {
  /** The JSONL file; created when missing. The head file is `<path>.head`. */
  readonly path: string;
  /**
   * `batch` (default): each batch is written, then fdatasync'ed, before `flush()` resolves
   * and before the head file moves on. `none`: no fsync; the OS writes back when it likes,
   * so a power loss (not a process crash) may lose seconds of records.
   */
  readonly fsync?: AuditFsyncPolicy;
  readonly clock?: Clock;
  /** Told about a write failure, once, when it happens. */
  readonly logger?: Logger;
}

/** One write call stays below this, so a long queue does not become one giant string. */
const MAX_WRITE_BYTES = 4 * 1024 * 1024;

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
 * written with one write and (fsync 'batch') one fdatasync. Then the head file is
 * replaced atomically, and `flush()` callers waiting for those records are released.
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
  /** seq of the last record appended, and of the last one durable with its head file. */
  private appendedSeq: number;
  private durableSeq: number;

  private constructor(
    private readonly file: FileHandle,
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
  }

  /**
   * Opens (or creates) the log and resumes its chain from the last record. Refuses, with an
   * Error naming the file and line, a cut last line (a torn write), a last record that does
   * not match its hash, and a log shorter than its head file says.
   */
  static async open(options: FileAuditLogOptions): Promise<FileAuditLog> {
    if (typeof options !== 'object' || options === null) throw new TypeError('FileAuditLog.open: options must be an object');
    if (typeof options.path !== 'string' || options.path.length === 0) throw new TypeError('FileAuditLog.open: options.path must be a non-empty string');
    const fsync = options.fsync ?? 'batch';
    if (!AUDIT_FSYNC_POLICIES.includes(fsync)) throw new TypeError(`FileAuditLog.open: options.fsync must be one of ${AUDIT_FSYNC_POLICIES.join(', ')}`);
    if (options.clock !== undefined && typeof options.clock?.now !== 'function') throw new TypeError('FileAuditLog.open: options.clock must have now()');
    const resumed = await resumeChain(options.path);
    const file = await open(options.path, 'a');
    const clock = options.clock ?? systemClock;
    const { nextSeq, prevLineHash, lastHash, size } = resumed ?? { nextSeq: 0, prevLineHash: GENESIS_HASH, lastHash: GENESIS_HASH, size: 0 };
    return new FileAuditLog(file, options.path, fsync, clock, options.logger, nextSeq, prevLineHash, lastHash, size);
  }

  append(entry: AuditEntry): void {
    if (this.closing) throw new RpcError('EAGENTRPC_AUDIT_CLOSED', `audit log ${this.path} is closed`, { details: { path: this.path } });
    if (typeof entry !== 'object' || entry === null || typeof entry.kind !== 'string' || entry.kind.length === 0) {
      throw new TypeError('FileAuditLog.append: entry.kind must be a non-empty string');
    }
    // A broken log records nothing more; the failure is reported by flush() and close().
    if (this.failure) return;
    // The chain's own fields come from the log, never from the entry.
    const { seq: _seq, at: _at, prev: _prev, hash: _hash, kind, ...fields } = entry;
    const unhashed = { seq: this.nextSeq, at: new Date(this.clock.now()).toISOString(), kind, ...fields, prev: this.prevLineHash };
    // Throws TypeError (and changes nothing) for values JSON cannot carry.
    const hash = hashRecord(unhashed);
    const line = JSON.stringify({ ...unhashed, hash });
    this.appendedSeq = this.nextSeq++;
    this.prevLineHash = sha256Hex(line);
    this.lastHash = hash;
    this.queue.push(`${line}\n`);
    this.writing ??= this.drain();
  }

  /** Resolves when every record appended before the call is on disk (fsynced under 'batch') and named by the head file. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.appendedSeq;
    if (seq <= this.durableSeq) return Promise.resolve();
    // Waits for its own records only, so a steady stream of appends cannot starve it.
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Flushes, then closes the file; rejects with a write failure, the file closed all the same. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      await this.flush();
    } finally {
      await this.writing;
      await this.file.close();
    }
  }

  private async drain(): Promise<void> {
    // Appends made in the same turn as the first one join its batch.
    await Promise.resolve();
    try {
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.queue;
        this.queue = [];
        // Taken now: appends made while this batch is written belong to the next one.
        const head: AuditHead = { seq: this.appendedSeq, hash: this.lastHash };
        const bytes = await this.writeBatch(batch);
        if (this.fsync === 'batch') await this.file.datasync();
        await this.writeHead(head);
        this.size += bytes;
        this.durableSeq = head.seq;
        this.release(head.seq);
      }
    } catch (error) {
      await this.fail(error);
    } finally {
      this.writing = undefined;
    }
  }

  /** Writes the batch's lines in order; returns the bytes written. */
  private async writeBatch(batch: string[]): Promise<number> {
    let written = 0;
    let from = 0;
    while (from < batch.length) {
      let to = from;
      let bytes = 0;
      while (to < batch.length && (to === from || bytes + batch[to]!.length <= MAX_WRITE_BYTES)) bytes += batch[to++]!.length;
      const data = Buffer.from(batch.slice(from, to).join(''));
      // write(2) may write less than asked (e.g. a full disk); carry on from there.
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await this.file.write(data, offset, data.length - offset);
        if (bytesWritten === 0) throw new RpcError('EAGENTRPC_AUDIT_WRITE_FAILED', `audit log ${this.path}: write made no progress`, { details: { path: this.path } });
        offset += bytesWritten;
      }
      written += data.length;
      from = to;
    }
    return written;
  }

  /**
   * Write-temp, sync, rename: the head file is always a whole, earlier-or-current head.
   * The directory is not synced: a rename lost in a crash leaves the previous head, which
   * only lags behind the log — verify accepts that; it never runs ahead of synced data.
   */
  private async writeHead(head: AuditHead): Promise<void> {
    const target = headPathOf(this.path);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(JSON.stringify(head));
      if (this.fsync === 'batch') await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
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
