import { open, readFile, rename, stat, type FileHandle } from 'node:fs/promises';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../observability/logger.js';
import type { AuditEntry, AuditLog } from './audit-log.js';
import { GENESIS_HASH, hashRecord, headPathOf, type AuditHead, type AuditRecord } from './audit-record.js';

export const AUDIT_FSYNC_POLICIES = ['batch', 'none'] as const;
export type AuditFsyncPolicy = (typeof AUDIT_FSYNC_POLICIES)[number];

export interface FileAuditLogOptions {
  readonly path: string;
  /**
   * `batch` (default): every write batch is fsynced before `flush()` resolves and before
   * the head file moves on. `none`: the OS decides; a power loss may lose recent records.
   */
  readonly fsync?: AuditFsyncPolicy;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * Append-only, hash-chained audit log: one JSON record per line (see audit-record.ts).
 *
 * `append` never waits: the record is chained at once (so the file order is the append
 * order) and queued; a writer drains the queue in batches, one write (and one fsync) per
 * batch — group commit, so thousands of decisions a second cost a few disk syncs. After
 * each batch the head file (`<path>.head`, last seq and hash) is replaced atomically.
 * A crash loses at most the batch being written (records appended but not yet flushed).
 * A write error does not throw at the caller of `append`: it is logged and makes the next
 * `flush()`/`close()` reject.
 */
export class FileAuditLog implements AuditLog {
  private queue: string[] = [];
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    private readonly file: FileHandle,
    private readonly options: Required<Pick<FileAuditLogOptions, 'path' | 'fsync'>> & FileAuditLogOptions,
    private seq: number,
    private lastHash: string,
    private readonly clock: Clock,
  ) {}

  /** Opens (or creates) the log and resumes its chain. A torn last line is an error, never chained onto. */
  static async open(options: FileAuditLogOptions): Promise<FileAuditLog> {
    if (typeof options?.path !== 'string' || options.path.length === 0) throw new TypeError('FileAuditLog: path is required');
    const fsync = options.fsync ?? 'batch';
    if (!AUDIT_FSYNC_POLICIES.includes(fsync)) throw new TypeError(`FileAuditLog: fsync must be one of ${AUDIT_FSYNC_POLICIES.join(', ')}`);
    const last = await readLastRecord(options.path);
    const file = await open(options.path, 'a');
    return new FileAuditLog(file, { ...options, fsync }, last ? last.seq + 1 : 0, last?.hash ?? GENESIS_HASH, options.clock ?? systemClock);
  }

  append(entry: AuditEntry): void {
    if (this.closed) throw new Error(`audit log ${this.options.path} is closed`);
    // The chain's own fields cannot be set by an entry.
    const { seq: _seq, at: _at, prev: _prev, hash: _hash, kind, ...fields } = entry as Record<string, unknown>;
    const unhashed = { seq: this.seq, at: new Date(this.clock.now()).toISOString(), kind, ...fields, prev: this.lastHash };
    const hash = hashRecord(unhashed);
    this.queue.push(`${JSON.stringify({ ...unhashed, hash })}\n`);
    this.seq++;
    this.lastHash = hash;
    this.writing ??= this.drain();
  }

  /** Resolves when every record appended before the call is written (and fsynced under `batch`). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.file.close();
    }
  }

  private async drain(): Promise<void> {
    // Yield once so that appends made in the same turn join this batch.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        // Taken before awaiting: appends made meanwhile belong to the next batch.
        const head: AuditHead = { seq: this.seq - 1, hash: this.lastHash };
        await this.file.write(batch.join(''));
        if (this.options.fsync === 'batch') await this.file.datasync();
        await this.writeHead(head);
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.options.logger?.error({ err: this.failure, path: this.options.path }, 'audit log write failed');
    } finally {
      this.writing = undefined;
    }
  }

  private async writeHead(head: AuditHead): Promise<void> {
    const target = headPathOf(this.options.path);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.write(JSON.stringify(head));
      if (this.options.fsync === 'batch') await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  }
}

/** The last record of an existing log, undefined for a new or empty one. */
async function readLastRecord(path: string): Promise<AuditRecord | undefined> {
  const size = await stat(path).then((s) => s.size, () => 0);
  if (size === 0) return undefined;
  const handle = await open(path, 'r');
  try {
    // Records are small; the tail holds the last one whole.
    const length = Math.min(size, 1 << 20);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    const text = buffer.toString('utf8');
    if (!text.endsWith('\n')) {
      const line = (await readFile(path, 'utf8')).split('\n').length;
      throw new Error(`audit log ${path}: line ${line} is incomplete (a torn write); run \`agent-rpc audit verify\` and repair before appending`);
    }
    const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1, -1);
    try {
      return JSON.parse(lastLine) as AuditRecord;
    } catch {
      throw new Error(`audit log ${path}: the last line is not a JSON record; run \`agent-rpc audit verify\``);
    }
  } finally {
    await handle.close();
  }
}
