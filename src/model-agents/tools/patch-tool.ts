import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { roleCan } from '../../auth/roles.js';
import { defineTool, permissionDenied, type Tool } from '../tool.js';
import { planPatch, type PatchPlan, type PlannedChange } from './patch-plan.js';
import { allowedRoots, resolveInside, type ExtraRoots } from './workspace-path.js';

export const PATCH = 'patch';

export interface PatchToolOptions {
  /** Directories writable besides the context's `workDir` (memory directories). */
  readonly extraRoots?: ExtraRoots;
  /**
   * How many context lines of a hunk may differ from the file and the hunk still apply
   * (jsdiff's `fuzzFactor`). Default 0: a model's misremembered context fails loudly
   * rather than landing in the wrong place.
   */
  readonly fuzzFactor?: number;
}

/**
 * `patch({patch})`: applies a unified diff that creates, edits, renames and deletes files
 * under the working directory or an extra root. All or nothing: every hunk of every file
 * is fitted in memory first, and a write that fails midway is rolled back, so the model
 * never has to reason about a half-applied patch.
 */
export function patchTool(options: PatchToolOptions = {}): Tool {
  const fuzzFactor = options.fuzzFactor ?? 0;
  if (!Number.isInteger(fuzzFactor) || fuzzFactor < 0) throw new RangeError(`fuzzFactor must be a non-negative integer, got ${String(options.fuzzFactor)}`);
  return defineTool<{ patch: string }>({
    name: PATCH,
    description:
      'Applies a unified diff to files under the working directory (or the memory directories). ' +
      'Each file section starts with "--- <old path>" and "+++ <new path>" (git-style a/ and b/ prefixes are fine) followed by @@ hunks with exact context lines. ' +
      'Use "--- /dev/null" to create a file and "+++ /dev/null" to delete one (the hunk then removes every line). One patch may change several files. ' +
      'All or nothing: if any hunk does not match, nothing is written and the failing file and hunk are named; read the file again and retry.',
    parameters: {
      type: 'object',
      properties: { patch: { type: 'string', minLength: 1, description: 'The unified diff to apply.' } },
      required: ['patch'],
      additionalProperties: false,
    },
    async run({ patch }, context) {
      if (!roleCan(context.principal.role, 'execute')) return permissionDenied(PATCH);
      const roots = allowedRoots(context, options.extraRoots);
      let plan: PatchPlan;
      try {
        const outcome = await planPatch(patch, { fuzzFactor, resolve: (path) => resolveInside(roots, path, context.workDir) });
        if (!outcome.ok) return { isError: true, output: outcome.error };
        plan = outcome.plan;
      } catch (error) {
        return { isError: true, output: `Cannot apply the patch: ${(error as Error).message}. Nothing was written.` };
      }
      if (context.signal?.aborted) return { isError: true, output: 'The patch was cancelled. Nothing was written.' };
      try {
        await writePlan(plan);
      } catch (error) {
        return { isError: true, output: `Cannot apply the patch: ${(error as Error).message}. Nothing was changed.` };
      }
      context.audit.append({
        kind: 'file_patch',
        agentId: context.agentId,
        user: context.principal.user,
        files: plan.changes.map((change) => ({ path: change.display, change: change.change })),
      });
      return { output: plan.changes.map(describe).join('\n') };
    },
  });
}

function describe(change: PlannedChange): string {
  const counts = change.change === 'edited' || change.change === 'renamed' ? ` (+${change.added} -${change.removed})` : '';
  return `${change.change} ${change.display}${counts}`;
}

/** Writes every changed file; if one write fails, the files already written are put back as they were. */
async function writePlan(plan: PatchPlan): Promise<void> {
  const done: Array<[string, string | null]> = [];
  try {
    for (const [path, file] of plan.files) {
      if (file.after === file.before) continue;
      await put(path, file.after);
      done.push([path, file.before]);
    }
  } catch (error) {
    for (const [path, before] of done.reverse()) await put(path, before).catch(() => undefined);
    throw error;
  }
}

async function put(path: string, content: string | null): Promise<void> {
  if (content === null) return rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content, 'utf8');
}
