import { existsSync, readFileSync } from 'node:fs';
import { formatTable } from './stats.js';

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children?: readonly ProfileNode[];
}

/**
 * The daemon's allocation profile (a sampling heap profile that kept collected objects) as
 * bytes per call: in all, and by the functions that allocate most themselves.
 */
export function allocationTable(file: string, calls: number, top = 15): string {
  if (!existsSync(file)) return `no allocation profile at ${file}`;
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode };
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode): void => {
    const frame = node.callFrame;
    const where = frame.url === '' ? '(native)' : `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    const site = `${frame.functionName || '(anonymous)'} ${where}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children ?? []) walk(child);
  };
  walk(head);
  const rows = [...bySite.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([site, bytes]) => [site, Math.round(bytes / calls), `${((bytes / total) * 100).toFixed(1)}%`]);
  return formatTable([`allocated by the daemon: ${Math.round(total / calls)} bytes per call`, 'bytes/call', 'share'], rows);
}
