import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A rotated DLQ file: `<path>.<number>`, numbered from 1, oldest first. */
export interface DlqSegment {
  readonly path: string;
  readonly number: number;
  records: number;
  bytes: number;
  /** ms since epoch of the newest record in it (the file's last write). */
  newestAt: number;
}

const SEGMENT_SUFFIX = /^\.(\d{12})$/;

export function dlqSegmentPath(path: string, number: number): string {
  return `${path}.${String(number).padStart(12, '0')}`;
}

/** The rotated segments of the DLQ file at `path`, oldest first, with their sizes. */
export async function listDlqSegments(path: string): Promise<DlqSegment[]> {
  const name = basename(path);
  const names = await readdir(dirname(path)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const found: Array<{ path: string; number: number }> = [];
  for (const entry of names) {
    if (!entry.startsWith(name)) continue;
    const match = SEGMENT_SUFFIX.exec(entry.slice(name.length));
    if (match) found.push({ path: join(dirname(path), entry), number: Number(match[1]) });
  }
  found.sort((a, b) => a.number - b.number);
  const segments: DlqSegment[] = [];
  for (const segment of found) {
    const counted = await countFile(segment.path);
    if (counted) segments.push({ ...segment, ...counted });
  }
  return segments;
}

/** Records (lines), bytes and last-write time of a file; undefined when it is gone. */
export async function countFile(path: string): Promise<{ records: number; bytes: number; newestAt: number } | undefined> {
  const text = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return undefined;
  const info = await stat(path);
  let records = 0;
  for (let i = text.indexOf(0x0a); i !== -1; i = text.indexOf(0x0a, i + 1)) records++;
  return { records, bytes: text.length, newestAt: info.mtimeMs };
}

/** Every file holding records of the DLQ at `path`, oldest first: its segments, then the file itself. */
export async function dlqFiles(path: string): Promise<string[]> {
  const name = basename(path);
  const names = await readdir(dirname(path)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const segments = names
    .filter((entry) => entry.startsWith(name) && SEGMENT_SUFFIX.test(entry.slice(name.length)))
    .sort()
    .map((entry) => join(dirname(path), entry));
  return [...segments, path];
}
