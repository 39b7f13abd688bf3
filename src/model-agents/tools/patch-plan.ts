import { readFile } from 'node:fs/promises';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';

/** What a patch does to one file, as the result tells the model. */
export const FILE_CHANGES = ['created', 'edited', 'deleted', 'renamed'] as const;
export type FileChange = (typeof FILE_CHANGES)[number];

export interface PlannedChange {
  readonly change: FileChange;
  /** The path as the patch names it (git's a/ b/ prefixes stripped); `from → to` for a rename. */
  readonly display: string;
  readonly added: number;
  readonly removed: number;
}

/** One file's content before the patch (null: absent) and after it (null: deleted). */
export interface PlannedFile {
  readonly before: string | null;
  after: string | null;
}

export interface PatchPlan {
  readonly changes: readonly PlannedChange[];
  /** Real path → contents; only these are written. */
  readonly files: ReadonlyMap<string, PlannedFile>;
}

export type PlanOutcome = { readonly ok: true; readonly plan: PatchPlan } | { readonly ok: false; readonly error: string };

export interface PlanOptions {
  /** Turns a path named in the patch into a real path, or undefined when it is out of bounds. */
  readonly resolve: (path: string) => Promise<string | undefined>;
  readonly fuzzFactor: number;
}

const DEV_NULL = '/dev/null';

/**
 * Works out every file's new content in memory, in patch order (a file patched twice sees
 * its first change), and writes nothing: the caller writes only a plan that succeeded in
 * full. A failure names the file and, for a hunk that does not fit, which hunk.
 */
export async function planPatch(text: string, options: PlanOptions): Promise<PlanOutcome> {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(text);
  } catch (error) {
    return fail(`Cannot parse the patch: ${(error as Error).message}`);
  }
  const patches = parsed.filter((patch) => patch.oldFileName !== undefined || patch.newFileName !== undefined || patch.hunks.length > 0);
  if (patches.length === 0) return fail('The patch changes no file: expected unified diff sections (--- old, +++ new, @@ hunks).');
  const strip = stripsGitPrefixes(patches);
  const files = new Map<string, PlannedFile>();
  const changes: PlannedChange[] = [];
  for (const patch of patches) {
    if (patch.oldFileName === undefined || patch.newFileName === undefined) return fail('A hunk has no file header: every file needs "--- <old path>" and "+++ <new path>" lines.');
    const oldName = patch.isCreate ? null : nameOf(patch.oldFileName, strip ? 'a/' : undefined);
    const newName = patch.isDelete ? null : nameOf(patch.newFileName, strip ? 'b/' : undefined);
    const name = (newName ?? oldName)!;
    if (oldName === null && newName === null) return fail('A file section names /dev/null on both sides.');
    if (patch.isBinary) return fail(`${name}: binary patches are not supported.`);
    const source = await resolved(oldName ?? name, options, files);
    if (typeof source === 'string') return fail(source);
    const target = newName === null || newName === oldName ? source : await resolved(newName, options, files);
    if (typeof target === 'string') return fail(target);
    if (oldName === null && source.file.after !== null) return fail(`Cannot create ${name}: it already exists.`);
    if (oldName !== null && source.file.after === null) return fail(`Cannot ${newName === null ? 'delete' : 'edit'} ${oldName}: file not found.`);
    if (target !== source && target.file.after !== null) return fail(`Cannot rename ${oldName} to ${newName}: ${newName} already exists.`);
    if (source.file.after?.includes('\0')) return fail(`Cannot patch ${name}: it is a binary file.`);
    const after = applyHunks(source.file.after ?? '', patch, options.fuzzFactor);
    if (typeof after === 'number') {
      const hunk = patch.hunks[after - 1]!;
      return fail(`Hunk ${after} of ${patch.hunks.length} (@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@) does not apply to ${name}: its context or removed lines do not match the file. Nothing was written; read the file again and regenerate the patch.`);
    }
    if (newName === null && after !== '') return fail(`Cannot delete ${oldName}: the patch removes only part of it (${countLines(after)} lines would remain).`);
    const { added, removed } = lineCounts(patch);
    if (newName === null) {
      source.file.after = null;
      changes.push({ change: 'deleted', display: oldName!, added, removed });
    } else if (target !== source) {
      source.file.after = null;
      target.file.after = after;
      changes.push({ change: oldName === null ? 'created' : 'renamed', display: oldName === null ? newName : `${oldName} → ${newName}`, added, removed });
    } else {
      source.file.after = after;
      changes.push({ change: oldName === null ? 'created' : 'edited', display: name, added, removed });
    }
  }
  return { ok: true, plan: { changes, files } };
}

/** The line counts of a change, as the result reports them (`+3 -1`). */
function lineCounts(patch: StructuredPatch): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of patch.hunks.flatMap((hunk) => hunk.lines)) {
    if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}

function fail(error: string): PlanOutcome {
  return { ok: false, error };
}

/**
 * Git writes `a/` and `b/` before every path; a hand-written patch may do the same or
 * name plain paths. The prefixes are stripped for a git patch, or when every old path
 * starts with `a/` and every new path with `b/` — a lone directory called `a` stays intact.
 */
function stripsGitPrefixes(patches: readonly StructuredPatch[]): boolean {
  if (patches.every((patch) => patch.isGit)) return true;
  const named = (name: string | undefined): name is string => name !== undefined && name !== DEV_NULL;
  const olds = patches.map((patch) => patch.oldFileName).filter(named);
  const news = patches.map((patch) => patch.newFileName).filter(named);
  return olds.every((name) => name.startsWith('a/')) && news.every((name) => name.startsWith('b/'));
}

function nameOf(name: string, prefix: string | undefined): string | null {
  if (name === DEV_NULL) return null;
  return prefix !== undefined && name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The plan's entry for a path (read from disk the first time), or why the path is refused. */
async function resolved(name: string, options: PlanOptions, files: Map<string, PlannedFile>): Promise<{ file: PlannedFile } | string> {
  const real = await options.resolve(name);
  if (real === undefined) return `Access denied: ${name} is outside the working directory and the memory directories. Nothing was written.`;
  let file = files.get(real);
  if (file === undefined) {
    const before = await readFile(real, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    file = { before, after: before };
    files.set(real, file);
  }
  return { file };
}

/**
 * The patched text, or the 1-based number of the first hunk that does not fit. The whole
 * file patch is applied at once (jsdiff then shifts later hunks by where earlier ones
 * landed); only on failure are growing prefixes of its hunks tried to find the culprit.
 */
function applyHunks(source: string, patch: StructuredPatch, fuzzFactor: number): string | number {
  if (patch.hunks.length === 0) return source;
  const whole = applyPatch(source, patch, { fuzzFactor });
  if (whole !== false) return whole;
  for (let count = 1; count < patch.hunks.length; count += 1) {
    if (applyPatch(source, { ...patch, hunks: patch.hunks.slice(0, count) }, { fuzzFactor }) === false) return count;
  }
  return patch.hunks.length;
}

function countLines(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
