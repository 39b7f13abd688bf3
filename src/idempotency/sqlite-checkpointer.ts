import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies the WAL into the database file. */
export const CHECKPOINT_EVERY_MS = 100;

/**
 * The checkpointer's code, run in a worker thread with its own connection to the file. A
 * PASSIVE checkpoint waits for no reader or writer: the store's connection keeps
 * committing while the checkpointer copies what was committed and syncs the files.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.path);
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing now: the next round tries again, and the store's own bound still holds.
  }
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  /** Stops the worker after its current checkpoint and closes its connection. */
  stop(): Promise<void>;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. With `wal_autocheckpoint` at its
 * default, the commit that takes the WAL past 1,000 pages copies them into the database
 * file and syncs both files before it returns: at 1,500 claims a second that happens about
 * ten times a second, and each holds the event loop for milliseconds to tens of
 * milliseconds (the sync). Here a worker thread checkpoints every 100 ms instead; the
 * store's connection keeps a far higher automatic checkpoint as a bound on the WAL should
 * the worker fall behind. Undefined when the worker cannot start (the store then
 * checkpoints as SQLite does by default).
 */
export async function startCheckpointer(path: string): Promise<Checkpointer | undefined> {
  let modulePath: string;
  try {
    modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return undefined;
  }
  const worker = new Worker(WORKER_CODE, { eval: true, workerData: { path, modulePath, everyMs: CHECKPOINT_EVERY_MS } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let failed: () => void = () => {};
  // A worker that fails later ends; the store's own automatic checkpoint bounds the WAL then.
  worker.on('error', () => failed());
  const ready = await new Promise<boolean>((resolve) => {
    failed = () => resolve(false);
    worker.once('message', () => resolve(true));
    void exited.then(() => resolve(false));
  });
  if (!ready) {
    await worker.terminate();
    return undefined;
  }
  // Running, it keeps no process alive; starting and stopping, it is waited for.
  worker.unref();
  return {
    async stop() {
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
