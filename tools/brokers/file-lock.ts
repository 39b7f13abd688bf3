import { open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { isProcessAlive } from './managed-process.js';

export interface FileLockOptions {
  /** A lock file untouched this long is taken over (its owner refreshes it while alive). */
  readonly staleMs?: number;
  /** Give up waiting for another owner after this long. */
  readonly timeoutMs?: number;
  /** Told once when the lock is busy, so a long wait is not silent. */
  readonly onWait?: (owner: string) => void;
}

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockOwner;
  } catch {
    return undefined; // vanished, or caught half-written
  }
}

async function isStale(path: string, staleMs: number): Promise<boolean> {
  const owner = await readOwner(path);
  if (owner !== undefined && owner.host === hostname() && !isProcessAlive(owner.pid)) return true;
  try {
    return Date.now() - (await stat(path)).mtimeMs > staleMs;
  } catch {
    return false; // released meanwhile: the next attempt will take it
  }
}

/**
 * Runs `fn` while holding an exclusive lock file, across processes (test workers).
 * Created with O_EXCL; the owner touches it periodically, and a lock whose owner died
 * or stopped touching it is taken over, so a crashed download never blocks forever.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 120_000;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  const me: LockOwner = { pid: process.pid, host: hostname(), token: `${process.pid}-${Date.now()}-${Math.random()}` };
  let told = false;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isStale(path, staleMs)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${path}`);
    if (!told) {
      told = true;
      const owner = await readOwner(path);
      options.onWait?.(owner === undefined ? 'unknown' : `pid ${owner.pid} on ${owner.host}`);
    }
    await delay(500); // another process holds it; lock files give no event to wait for
  }

  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, Math.max(1_000, Math.floor(staleMs / 4)));
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    const owner = await readOwner(path);
    if (owner?.token === me.token) await unlink(path).catch(() => undefined);
  }
}
