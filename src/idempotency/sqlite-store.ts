import type { Database, Statement, Transaction } from 'better-sqlite3';
import { systemClock, type Clock } from '../clock.js';
import { importOptional } from '../optional-package.js';
import { claimDecision, type ClaimOwner, type ClaimResult, type IdempotencyStore, type StoredReply } from './store.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';

export interface SqliteIdempotencyStoreOptions {
  /** Database file; created if missing. */
  readonly path: string;
  /**
   * `process-crash` (default): WAL with synchronous=NORMAL — a committed record survives
   * the process dying. `power-loss`: synchronous=FULL — it also survives the machine losing
   * power, at the cost of an fsync per write.
   */
  readonly durability?: 'process-crash' | 'power-loss';
  readonly clock?: Clock;
  /**
   * How long opening waits for another process that holds the file's write lock (a replica
   * opening or migrating the same file) before failing. Default 10 s.
   */
  readonly lockWaitMs?: number;
  /** Loads `better-sqlite3`; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

/** 1: key, state, reply, expiry. 2: claims record their owner (instance, life). */
const SCHEMA_VERSION = 2;
const CLAIMED = 0;
const DONE = 1;
/**
 * Expired rows are deleted once every this many claims, at most SWEEP_ROWS at a time: more
 * than one row per claim keeps up with the one row a claim adds, and no sweep holds the
 * event loop for longer than a few hundred deletes (a sweep of every expired row at once
 * grew with the traffic of the TTL's span).
 */
const SWEEP_EVERY = 100;
const SWEEP_ROWS = 250;
/**
 * WAL pages after which the store's own connection checkpoints: a bound for when the
 * checkpointer thread falls behind or could not start (SQLite's default is 1,000).
 */
const WAL_BOUND_PAGES = 16_384;
const DEFAULT_LOCK_WAIT_MS = 10_000;
/** Pause between tries of a step SQLite refused at once because another connection holds the lock. */
const BUSY_RETRY_MS = 25;

interface Row {
  state: number;
  reply_to: string | null;
  body: Buffer | null;
  expires_at: number;
  owner_instance: string | null;
  owner_life: string | null;
}

const ownerOf = (row: Row): ClaimOwner | undefined =>
  row.owner_instance !== null && row.owner_life !== null ? { instance: row.owner_instance, life: row.owner_life } : undefined;

/**
 * Brings a file of any earlier layout to the current one. The first layout had no claim
 * owners: its columns stay, the owner columns are added (NULL: a claim of unknown owner,
 * which waits out its lease). `user_version` records the layout reached. Replicas may open
 * one file at the same moment: the whole migration is one IMMEDIATE transaction (the write
 * lock is taken before the layout is read), so the second waits and then finds it done.
 */
function migrate(db: Database): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS dedupe (
      key TEXT PRIMARY KEY, state INTEGER NOT NULL, reply_to TEXT, body BLOB, expires_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX IF NOT EXISTS dedupe_expiry ON dedupe (expires_at)');
    const columns = new Set((db.pragma('table_info(dedupe)') as Array<{ name: string }>).map((column) => column.name));
    if (!columns.has('owner_instance')) db.exec('ALTER TABLE dedupe ADD COLUMN owner_instance TEXT');
    if (!columns.has('owner_life')) db.exec('ALTER TABLE dedupe ADD COLUMN owner_life TEXT');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Runs an opening step again while another connection holds the file's lock. Switching to
 * WAL fails at once with SQLITE_BUSY, without SQLite's own busy wait, when another process
 * holds the write lock (waiting there could deadlock): replicas opening one file at the same
 * moment hit exactly that. The pauses are timers, so the event loop keeps running meanwhile.
 */
async function whileLocked(path: string, waitMs: number, step: () => unknown): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      if (Date.now() >= deadline) {
        throw new Error(`SqliteIdempotencyStore: ${path} stayed locked by another process for ${waitMs} ms`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }
}

/**
 * Dedupe records that survive a restart: a request processed before a crash is recognised
 * when the broker redelivers it, and answered with the stored reply instead of running the
 * handler again. Claims and completions are single SQLite transactions.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly select: Statement<[string], Row>;
  private readonly upsert: Statement<[string, number, string | null, Buffer | null, number, string | null, string | null]>;
  private readonly remove: Statement<[string]>;
  private readonly sweep: Statement<[number, number]>;
  private readonly claimTx: Transaction<(key: string, leaseMs: number, owner: ClaimOwner) => ClaimResult>;
  private claims = 0;

  private constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly checkpointer: Checkpointer | undefined,
  ) {
    this.select = db.prepare('SELECT state, reply_to, body, expires_at, owner_instance, owner_life FROM dedupe WHERE key = ?');
    this.upsert = db.prepare('INSERT OR REPLACE INTO dedupe (key, state, reply_to, body, expires_at, owner_instance, owner_life) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.remove = db.prepare('DELETE FROM dedupe WHERE key = ?');
    this.sweep = db.prepare('DELETE FROM dedupe WHERE rowid IN (SELECT rowid FROM dedupe WHERE expires_at <= ? LIMIT ?)');
    // IMMEDIATE: a claim reads then writes; a deferred transaction in two processes sharing
    // the file would both hold the read lock and one would fail to upgrade (SQLITE_BUSY).
    this.claimTx = db.transaction((key: string, leaseMs: number, owner: ClaimOwner): ClaimResult => {
      const now = this.clock.now();
      const row = this.select.get(key);
      const holder = row ? ownerOf(row) : undefined;
      const decision = claimDecision(row && { done: row.state !== CLAIMED, expiresAt: row.expires_at, owner: holder }, owner, now);
      if (decision === 'in-progress') return { state: 'in-progress', ...(holder ? { owner: holder } : {}), leaseLeftMs: (row?.expires_at ?? now) - now };
      if (decision === 'done') {
        const reply = row && row.reply_to !== null && row.body !== null ? { replyTo: row.reply_to, body: new Uint8Array(row.body) } : undefined;
        return { state: 'done', reply };
      }
      this.upsert.run(key, CLAIMED, null, null, now + leaseMs, owner.instance, owner.life);
      return decision === 'take-over' && holder ? { state: 'claimed', takenOverFrom: holder } : { state: 'claimed' };
    });
  }

  static async open(options: SqliteIdempotencyStoreOptions): Promise<SqliteIdempotencyStore> {
    if (typeof options?.path !== 'string' || options.path.length === 0) throw new TypeError('SqliteIdempotencyStore: path is required');
    const durability = options.durability ?? 'process-crash';
    if (durability !== 'process-crash' && durability !== 'power-loss') {
      throw new TypeError('SqliteIdempotencyStore: durability must be process-crash or power-loss');
    }
    const module = (await importOptional(options.loadModule ?? (() => import('better-sqlite3')), 'the sqlite idempotency store', 'better-sqlite3')) as {
      default: new (path: string) => Database;
    };
    const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    if (!Number.isFinite(lockWaitMs) || lockWaitMs < 0) throw new TypeError('SqliteIdempotencyStore: lockWaitMs must be a number ≥ 0');
    const db = new module.default(options.path);
    try {
      await whileLocked(options.path, lockWaitMs, () => db.pragma('journal_mode = WAL'));
      db.pragma(`synchronous = ${durability === 'power-loss' ? 'FULL' : 'NORMAL'}`);
      await whileLocked(options.path, lockWaitMs, () => migrate(db));
      const checkpointer = await startCheckpointer(options.path);
      if (checkpointer) db.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
      return new SqliteIdempotencyStore(db, options.clock ?? systemClock, checkpointer);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  claim(key: string, leaseMs: number, owner: ClaimOwner): ClaimResult {
    if (++this.claims % SWEEP_EVERY === 0) this.sweep.run(this.clock.now(), SWEEP_ROWS);
    return this.claimTx.immediate(key, leaseMs, owner);
  }

  complete(key: string, reply: StoredReply | undefined, ttlMs: number): void {
    const body = reply ? Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength) : null;
    this.upsert.run(key, DONE, reply?.replyTo ?? null, body, this.clock.now() + ttlMs, null, null);
  }

  release(key: string): void {
    this.remove.run(key);
  }

  async close(): Promise<void> {
    // The checkpointer's connection goes first: the last connection to close checkpoints and removes the WAL.
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}
