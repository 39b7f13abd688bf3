import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive, removeOnExit } from './managed-process.js';

const ownerFile = '.owner-pid';

/**
 * Removes `<tmp>/<prefix>*` folders whose creating process is gone. The exit hook cannot
 * run when a test runner kills its worker with a signal, so leftovers are swept here.
 */
function sweepOrphans(prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    try {
      const pid = Number.parseInt(readFileSync(join(dir, ownerFile), 'utf8'), 10);
      if (Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // no owner file (not ours, or being created): leave it
    }
  }
}

/** A fresh temporary folder for one server, deleted when this process exits. */
export function createWorkDir(prefix: string): string {
  sweepOrphans(prefix);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, ownerFile), String(process.pid));
  removeOnExit(dir);
  return dir;
}
