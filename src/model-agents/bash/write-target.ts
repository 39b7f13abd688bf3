import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Device files a command may always write to. */
const HARMLESS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
/** Symbolic links followed before giving up (a loop counts as outside). */
const MAX_LINKS = 40;

/**
 * Where writing to `path` really lands: relative paths resolve against `base`; the nearest
 * existing ancestor is resolved with realpath, so a symlinked directory counts where it
 * points; a dangling symlink counts where it would create its file.
 */
async function landing(path: string, links = 0): Promise<string | undefined> {
  if (links > MAX_LINKS) return undefined;
  try {
    return await realpath(path);
  } catch {
    // Missing (or a dangling link): follow a link by hand, else resolve the parent.
  }
  try {
    if ((await lstat(path)).isSymbolicLink()) return landing(resolve(dirname(path), await readlink(path)), links + 1);
  } catch {
    // Does not exist at all.
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const real = await landing(parent, links);
  return real === undefined ? undefined : join(real, basename(path));
}

/** Whether a redirection to `target` (as written in the line) stays inside `workDir`. */
export async function writesInside(target: string, workDir: string): Promise<boolean> {
  if (HARMLESS.has(target)) return true;
  const root = await realpath(workDir);
  const lands = await landing(resolve(root, target));
  if (lands === undefined) return false;
  const rel = relative(root, lands);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
