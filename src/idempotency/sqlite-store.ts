import type { Database, Statement } from 'better-sqlite3';
import { systemClock, type Clock } from '../clock.js';
import { RpcError } from '../errors.js';
import type { ClaimResult, IdempotencyStore, StoredReply } from './store.js';

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
  /** Loads `better-sqlite3`; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

const CLAIMED = 0;
const DONE = 1;
/** Expired rows are deleted once every this many claims, not on every call. */
const SWEEP_EVERY = 1_000;

interface Row {
  state: number;
  reply_to: string | null;
  body: Buffer | null;
  expires_at: number;
}

/**
 * Dedupe records that survive a restart: a request processed before a crash is recognised
 * when the broker redelivers it, and answered with the stored reply instead of running the
 * handler again. Claims and completions are single SQLite transactions.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly select: Statement<[string], Row>;
  private readonly upsert: Statement<[string, number, string | null, Buffer | null, number]>;
  private readonly remove: Statement<[string]>;
  private readonly sweep: Statement<[number]>;
  private readonly claimTx: (key: string, leaseMs: number) => ClaimResult;
  private claims = 0;

  private constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS dedupe (
      key TEXT PRIMARY KEY, state INTEGER NOT NULL, reply_to TEXT, body BLOB, expires_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX IF NOT EXISTS dedupe_expiry ON dedupe (expires_at)');
    this.select = db.prepare('SELECT state, reply_to, body, expires_at FROM dedupe WHERE key = ?');
    this.upsert = db.prepare('INSERT OR REPLACE INTO dedupe (key, state, reply_to, body, expires_at) VALUES (?, ?, ?, ?, ?)');
    this.remove = db.prepare('DELETE FROM dedupe WHERE key = ?');
    this.sweep = db.prepare('DELETE FROM dedupe WHERE expires_at <= ?');
    this.claimTx = db.transaction((key: string, leaseMs: number): ClaimResult => {
      const now = this.clock.now();
      const row = this.select.get(key);
      if (row && row.expires_at > now) {
        if (row.state === CLAIMED) return { state: 'in-progress' };
        const reply = row.reply_to !== null && row.body !== null ? { replyTo: row.reply_to, body: new Uint8Array(row.body) } : undefined;
        return { state: 'done', reply };
      }
      this.upsert.run(key, CLAIMED, null, null, now + leaseMs);
      return { state: 'claimed' };
    });
  }

  static async open(options: SqliteIdempotencyStoreOptions): Promise<SqliteIdempotencyStore> {
    if (typeof options?.path !== 'string' || options.path.length === 0) throw new TypeError('SqliteIdempotencyStore: path is required');
    const durability = options.durability ?? 'process-crash';
    if (durability !== 'process-crash' && durability !== 'power-loss') {
      throw new TypeError('SqliteIdempotencyStore: durability must be process-crash or power-loss');
    }
    let module: { default: new (path: string) => Database };
    try {
      module = (await (options.loadModule ?? (() => import('better-sqlite3')))()) as typeof module;
    } catch (cause) {
      throw new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the sqlite idempotency store needs better-sqlite3: run `npm install better-sqlite3`', {
        cause,
      });
    }
    const db = new module.default(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'power-loss' ? 'FULL' : 'NORMAL'}`);
    return new SqliteIdempotencyStore(db, options.clock ?? systemClock);
  }

  claim(key: string, leaseMs: number): ClaimResult {
    if (++this.claims % SWEEP_EVERY === 0) this.sweep.run(this.clock.now());
    return this.claimTx(key, leaseMs);
  }

  complete(key: string, reply: StoredReply | undefined, ttlMs: number): void {
    const body = reply ? Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength) : null;
    this.upsert.run(key, DONE, reply?.replyTo ?? null, body, this.clock.now() + ttlMs);
  }

  release(key: string): void {
    this.remove.run(key);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
