import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { defineTool, type Tool, type ToolResult } from '../tool.js';
import { allowedRoots, outsideRoots, resolveInside, type ExtraRoots } from './workspace-path.js';

export const READ = 'read';

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 50_000;
const MAX_DIRECTORY_ENTRIES = 500;
/** How much of a file's start is checked for NUL bytes: git's heuristic for "binary". */
const BINARY_PROBE_BYTES = 8000;

export interface ReadToolOptions {
  /** Directories readable besides the context's `workDir` (memory directories). */
  readonly extraRoots?: ExtraRoots;
}

/**
 * `read({path, offset?, limit?})`: a text file's lines, numbered like `cat -n`, from the
 * working directory or an extra root. Long lines and long outputs are cut with a note
 * saying where to continue; a directory answers with its entries, a binary file with a
 * refusal, so the model learns something from every mistake.
 */
export function readTool(options: ReadToolOptions = {}): Tool {
  return defineTool<{ path: string; offset?: number; limit?: number }>({
    name: READ,
    description: `Reads a text file and returns its lines prefixed with line numbers. Relative paths are resolved against the working directory; only the working directory and the agent's memory directories are readable. Reads at most ${DEFAULT_LIMIT} lines from offset (1-based) unless limit says otherwise; lines over ${MAX_LINE_CHARS} characters and outputs over ${MAX_OUTPUT_CHARS} characters are cut, with a note telling where to continue. A directory path lists its entries.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'The file to read, relative to the working directory or absolute.' },
        offset: { type: 'integer', minimum: 1, description: 'The first line to return (1-based). Default: 1.' },
        limit: { type: 'integer', minimum: 1, description: `How many lines to return at most. Default: ${DEFAULT_LIMIT}.` },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async run({ path, offset = 1, limit = DEFAULT_LIMIT }, context) {
      const real = await resolveInside(allowedRoots(context, options.extraRoots), path, context.workDir);
      if (real === undefined) return outsideRoots(path);
      try {
        const info = await stat(real);
        if (info.isDirectory()) return await listDirectory(path, real);
        if (!info.isFile()) return { isError: true, output: `Cannot read ${path}: not a regular file.` };
        if (await looksBinary(real)) return { isError: true, output: `Cannot read ${path}: it is a binary file.` };
        return await numberedLines(path, real, offset, limit, context.signal);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return { isError: true, output: `File not found: ${path}` };
        return { isError: true, output: `Cannot read ${path}: ${(error as Error).message}` };
      }
    },
  });
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(BINARY_PROBE_BYTES), 0, BINARY_PROBE_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

async function listDirectory(path: string, real: string): Promise<ToolResult> {
  const entries = (await readdir(real, { withFileTypes: true })).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = entries.slice(0, MAX_DIRECTORY_ENTRIES);
  const more = entries.length > shown.length ? `\n[${entries.length - shown.length} more entries not shown]` : '';
  const listing = entries.length === 0 ? '(empty)' : shown.join('\n');
  return { isError: true, output: `${path} is a directory, not a file. Its entries:\n${listing}${more}` };
}

/**
 * Streams the file so a huge log costs no more memory than the lines shown; it still reads
 * to the end to count the lines, which tells the model how much is left.
 */
async function numberedLines(path: string, real: string, offset: number, limit: number, signal: AbortSignal | undefined): Promise<ToolResult> {
  const lines = createInterface({ input: createReadStream(real, { encoding: 'utf8', ...(signal ? { signal } : {}) }), crlfDelay: Infinity });
  const out: string[] = [];
  let total = 0;
  let chars = 0;
  let cutAt: number | undefined;
  for await (const line of lines) {
    total += 1;
    if (total < offset || total >= offset + limit || cutAt !== undefined) continue;
    const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}... [line cut at ${MAX_LINE_CHARS} of ${line.length} characters]` : line;
    const numbered = `${String(total).padStart(6)}\t${shown}`;
    if (out.length > 0 && chars + numbered.length + 1 > MAX_OUTPUT_CHARS) {
      cutAt = total;
      continue;
    }
    out.push(numbered);
    chars += numbered.length + 1;
  }
  if (total === 0) return { output: `${path} is empty.` };
  if (offset > total) return { isError: true, output: `${path} has ${total} lines; offset ${offset} is past the end.` };
  const last = offset + out.length - 1;
  const notes: string[] = [];
  if (cutAt !== undefined) notes.push(`[output cut at ${MAX_OUTPUT_CHARS} characters: showing lines ${offset}-${last} of ${total}; continue with offset=${cutAt}]`);
  else if (last < total) notes.push(`[showing lines ${offset}-${last} of ${total}; continue with offset=${last + 1}]`);
  return { output: [...out, ...notes].join('\n') };
}
