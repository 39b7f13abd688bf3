import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { positiveInteger } from '../check-integer.js';
import { isAgentId } from '../envelope/schema.js';

/** How much memory an agent loads at most: enough for notes, not enough to crowd out the task. */
export const MAX_MEMORY_CHARS = 64 * 1024;

export interface AgentMemoryOptions {
  /** The daemon's data directory; memory lives under `<dataDir>/memory/`. */
  readonly dataDir: string;
  readonly agentId: string;
  /** Default MAX_MEMORY_CHARS. */
  readonly maxChars?: number;
}

export interface AgentMemory {
  /** Every memory file under a `## memory/...` heading, in load order; empty when there are none. */
  readonly text: string;
  /** The global and the agent's own memory directory: the extra roots read and patch may reach. */
  readonly dirs: readonly string[];
}

/**
 * Loads what an agent remembers across runs: `<dataDir>/memory/global/*.md` (shared by
 * every agent), then `<dataDir>/memory/agents/<agentId>/*.md`, each directory sorted by
 * file name. Both directories are created when absent so the agent can add notes there
 * with `patch`. The text is cut at `maxChars`, with a note saying so.
 */
export async function loadAgentMemory(options: AgentMemoryOptions): Promise<AgentMemory> {
  if (typeof options.dataDir !== 'string' || options.dataDir === '') throw new TypeError('dataDir must be a non-empty path');
  // The id becomes a directory name: one that is not an agent id could climb out of memory/agents.
  if (typeof options.agentId !== 'string' || !isAgentId(options.agentId) || options.agentId === '..' || options.agentId === '.') {
    throw new TypeError(`agentId must be an agent id ([A-Za-z0-9][A-Za-z0-9._-]{0,127}), got ${JSON.stringify(options.agentId)}`);
  }
  const maxChars = positiveInteger(options.maxChars ?? MAX_MEMORY_CHARS, 'maxChars');
  const dataDir = resolve(options.dataDir);
  const dirs = [join(dataDir, 'memory', 'global'), join(dataDir, 'memory', 'agents', options.agentId)] as const;
  const files: string[] = [];
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    // Regular files only: a symlink could pull in what read and patch would refuse to touch.
    const names = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.md')).map((entry) => entry.name);
    files.push(...names.sort(byCodePoint).map((name) => join(dir, name)));
  }
  const sections: string[] = [];
  let used = 0;
  for (const [index, file] of files.entries()) {
    const section = `## ${relative(dataDir, file).split('\\').join('/')}\n\n${(await readFile(file, 'utf8')).trimEnd()}\n`;
    if (used + section.length > maxChars) {
      const room = maxChars - used;
      if (room > 0) sections.push(section.slice(0, room));
      sections.push(`\n[memory cut at ${maxChars} characters: ${files.length - index} of ${files.length} files not loaded in full]\n`);
      break;
    }
    sections.push(section);
    used += section.length + 1;
  }
  return { text: sections.join('\n'), dirs };
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
