import { randomUUID } from 'node:crypto';
import type { ExecuteOutcome, UpdatedContext } from './execute-runner.js';

export interface HandlerStatus {
  readonly status: 'running' | 'completed' | 'failed';
  readonly result?: unknown;
  readonly updated_context?: UpdatedContext;
  readonly error?: { readonly code: string; readonly message: string };
}

interface Entry {
  readonly user: string;
  view: HandlerStatus;
  finishedAt?: number;
}

export interface ExecuteHandlersOptions {
  /** Finished handlers kept at most; the oldest go first. Default 1000. */
  readonly maxFinished?: number;
  /** How long a finished handler's answer can be read. Default 1 hour. */
  readonly keepMs?: number;
}

/**
 * The `POST /execute/async` handlers of this process, in memory: running ones until they
 * finish, finished ones for a bounded time and count. Only the user who created one
 * sees it; anyone else gets the same answer as for an unknown id.
 */
export class ExecuteHandlers {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: ExecuteHandlersOptions = {}) {}

  start(user: string, run: Promise<ExecuteOutcome>): string {
    const id = randomUUID();
    const entry: Entry = { user, view: { status: 'running' } };
    this.entries.set(id, entry);
    const settled = run.catch((error: unknown): ExecuteOutcome => {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, status: 500, error: { code: 'EAGENTRPC_HANDLER_FAILED', message }, updatedContext: { messages: [], thoughts: [], usage: [] } };
    });
    void settled.then((outcome) => {
      entry.view = outcome.ok
        ? { status: 'completed', result: outcome.result, updated_context: outcome.updatedContext }
        : { status: 'failed', error: outcome.error, updated_context: outcome.updatedContext };
      entry.finishedAt = Date.now();
      this.prune();
    });
    return id;
  }

  get(user: string, id: string): HandlerStatus | undefined {
    this.prune();
    const entry = this.entries.get(id);
    return entry?.user === user ? entry.view : undefined;
  }

  private prune(): void {
    const keepMs = this.options.keepMs ?? 60 * 60_000;
    const max = this.options.maxFinished ?? 1000;
    const now = Date.now();
    const finished = [...this.entries].filter(([, entry]) => entry.finishedAt !== undefined);
    // Map order is creation order: the oldest finished handlers come first.
    let over = finished.length - max;
    for (const [id, entry] of finished) {
      if (over > 0 || now - entry.finishedAt! > keepMs) {
        this.entries.delete(id);
        over--;
      }
    }
  }
}
