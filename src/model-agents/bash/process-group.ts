import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether any process of group `pgid` is still running. On Linux from /proc, so zombies
 * (dead, waiting for a parent that may never reap them) do not count; elsewhere signal 0
 * to the group, which counts them.
 */
export function groupAlive(pgid: number): boolean {
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) === pgid && state !== 'Z' && state !== 'X') return true;
    } catch {
      // It ended while we looked.
    }
  }
  return false;
}

/** Waits, up to `limitMs`, until nothing of the group runs: a killed process may still be exiting when its pipes close. */
export async function groupEnded(pgid: number, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (groupAlive(pgid) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}
