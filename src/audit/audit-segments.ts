import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A closed segment of an audit log: `<path>.<seq of its first record, 12 digits>`. The log
 * being written is `<path>` itself; its records follow those of the last segment, and the
 * hash chain runs on across them (the first record of a segment links to the last one of
 * the segment before).
 */
export interface AuditSegment {
  readonly path: string;
  readonly firstSeq: number;
}

const SEGMENT_SUFFIX = /^\.(\d{12})$/;

export function auditSegmentPath(path: string, firstSeq: number): string {
  return `${path}.${String(firstSeq).padStart(12, '0')}`;
}

/** The closed segments of the log at `path`, oldest first. */
export async function listAuditSegments(path: string): Promise<AuditSegment[]> {
  const name = basename(path);
  const names = await readdir(dirname(path)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const segments: AuditSegment[] = [];
  for (const entry of names) {
    if (!entry.startsWith(name)) continue;
    const match = SEGMENT_SUFFIX.exec(entry.slice(name.length));
    if (match) segments.push({ path: join(dirname(path), entry), firstSeq: Number(match[1]) });
  }
  return segments.sort((a, b) => a.firstSeq - b.firstSeq);
}

/** Every file of the log, oldest first: its closed segments, then `path` when it exists. */
export async function auditFiles(path: string): Promise<string[]> {
  const segments = (await listAuditSegments(path)).map((segment) => segment.path);
  const active = await stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
  return active ? [...segments, path] : segments;
}
