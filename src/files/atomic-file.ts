import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface AtomicWriteOptions {
  /**
   * Default true: when the promise resolves, the new content survives a power loss or a
   * kernel crash (the file's data is synced before the rename, the directory after it).
   * A store that acknowledges a change must not lose it, so durability is what a caller
   * gets unless it opts out; `false` (an audit log under `fsync: 'none'`) still replaces
   * the file atomically for readers and for a crash of the process, only without syncs.
   */
  readonly durable?: boolean;
  /** Permissions of a newly created file (0o600 for credentials); default 0o666 before the umask. */
  readonly mode?: number;
}

/**
 * Replaces the file at `path` with `data` so that a reader, or a crash, sees the old
 * content or the new one, never part of either: written to `<path>.tmp` in the same
 * directory (a rename is atomic only within one file system), synced when durable, renamed
 * over `path`, then the directory synced when durable so the rename itself is on disk.
 * One write per path at a time: callers order their writes of one file (the temp name is
 * fixed, so a crash leaves at most one temp file, which the next write replaces).
 */
export async function writeFileAtomically(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable ?? true;
  const temp = `${path}.tmp`;
  try {
    const handle = await open(temp, 'w', options.mode);
    try {
      await handle.writeFile(data);
      // fdatasync is enough: for a file just written it also syncs the size, all a reader needs.
      if (durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (durable) await syncDirectory(dirname(path));
}

/** Makes a rename in `dir` durable. Windows cannot open a directory to sync it: there a rename is as durable as the file system makes it. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
