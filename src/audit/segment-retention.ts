import { unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AuditEntry } from './audit-log.js';
import { planAuditRetention, type AuditRetention } from './audit-retention.js';

/** What retention needs of the log: the first seq of the file being written, and a way to chain a record (returns its seq). */
export interface RetainedLog {
  readonly activeFirstSeq: number;
  chain(entry: AuditEntry): number;
}

/**
 * Retention of an audit log's closed segments. After a rotation it plans which segments go
 * (audit-retention.ts) and says so in the chain first, with an `audit_retention` record; the
 * files are removed only once that record is durable, so a crash never leaves a gap the
 * chain does not explain.
 */
export class SegmentRetention {
  /** A segment was closed since retention last looked. */
  private due = false;
  /** Segments removed once the `audit_retention` record saying so is durable. */
  private pendingRemoval: { readonly files: readonly string[]; readonly afterSeq: number } | undefined;

  constructor(
    private readonly path: string,
    private readonly retain: AuditRetention | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger | undefined,
  ) {}

  segmentClosed(): void {
    this.due = this.retain !== undefined;
  }

  /** Whether `afterWrite` has work: segments whose removal record is durable, or a plan after a rotation. */
  workDue(durableSeq: number): boolean {
    const removal = this.pendingRemoval;
    return (removal !== undefined && durableSeq >= removal.afterSeq) || (this.due && removal === undefined);
  }

  /** Run by the log's writer after each step: removes what a durable record said goes, then plans after a rotation. */
  async afterWrite(durableSeq: number, log: RetainedLog): Promise<void> {
    const removal = this.pendingRemoval;
    if (removal !== undefined && durableSeq >= removal.afterSeq) await this.removeSegments(removal.files);
    if (this.due && this.pendingRemoval === undefined) await this.plan(log);
  }

  private async plan(log: RetainedLog): Promise<void> {
    this.due = false;
    const plan = await planAuditRetention(this.path, this.retain!, this.clock.now(), log.activeFirstSeq);
    if (plan === undefined) return;
    const afterSeq = log.chain(plan.record);
    this.pendingRemoval = { files: plan.remove, afterSeq };
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
}
