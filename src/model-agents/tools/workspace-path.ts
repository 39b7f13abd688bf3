import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolContext, ToolResult } from '../tool.js';

/**
 * Directories a file tool may reach besides the working directory (the agent's memory
 * directories, say): fixed, or read from the context on every call.
 */
export type ExtraRoots = readonly string[] | ((context: ToolContext) => readonly string[]);

/** The working directory first, then the extra roots; what `resolveInside` confines to. */
export function allowedRoots(context: ToolContext, extra: ExtraRoots | undefined): readonly string[] {
  const more = typeof extra === 'function' ? extra(context) : (extra ?? []);
  return context.workDir === undefined ? more : [context.workDir, ...more];
}

/**
 * Resolves a model-given path (absolute, or relative to `base`) and returns its real path
 * when that lies inside one of `roots`, else undefined. `..` and symlinks are resolved
 * first: the path's own realpath, or for a file not yet created its nearest existing
 * ancestor's realpath joined with the rest, so a link inside a root cannot lead out of it.
 * A dangling symlink is refused: writing through it would land wherever it points.
 * Roots that do not exist confine nothing and are skipped.
 */
export async function resolveInside(roots: readonly string[], requested: string, base: string | undefined): Promise<string | undefined> {
  if (requested.length === 0 || requested.includes('\0')) return undefined;
  if (!isAbsolute(requested) && base === undefined) return undefined;
  const real = await realTarget(base === undefined ? resolve(requested) : resolve(base, requested));
  if (real === undefined) return undefined;
  for (const root of roots) {
    const realRoot = await realpath(resolve(root)).catch(() => undefined);
    if (realRoot !== undefined && isWithin(realRoot, real)) return real;
  }
  return undefined;
}

/** Whether `path` is `root` itself or below it (both already real and absolute). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function realTarget(absolute: string): Promise<string | undefined> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if (!isMissing(error)) return undefined;
      // realpath fails alike for a missing entry and a dangling link; lstat tells them apart.
      if (await lstat(current).then(() => true, () => false)) return undefined;
      const parent = dirname(current);
      if (parent === current) return undefined;
      missing.push(current.slice(parent.length).replace(/^[\\/]+/, ''));
      current = parent;
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The refusal read and patch give for a path `resolveInside` did not accept. */
export function outsideRoots(path: string): ToolResult {
  return { isError: true, output: `Access denied: ${path} is outside the working directory and the memory directories.` };
}
