import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionRecord } from './session-record.js';

const FILE_RE = /^([0-9a-f-]{36})\.json$/;

/**
 * Sessions on disk, one JSON file per session under `<dataDir>/sessions/`, each replaced
 * atomically (temp file, fsync, rename) so a crash leaves the old or the new state, never
 * half of one. Writes of one session are chained, so the last state wins.
 */
export class SessionFileStore {
  private readonly chains = new Map<string, Promise<void>>();

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<SessionFileStore> {
    await mkdir(dir, { recursive: true });
    return new SessionFileStore(dir);
  }

  /** Every stored session; files that cannot be read are reported, not fatal. */
  async loadAll(onBadFile: (file: string, error: unknown) => void): Promise<SessionRecord[]> {
    const records: SessionRecord[] = [];
    for (const name of await readdir(this.dir)) {
      if (!FILE_RE.test(name)) continue;
      const file = join(this.dir, name);
      try {
        records.push(JSON.parse(await readFile(file, 'utf8')) as SessionRecord);
      } catch (error) {
        onBadFile(file, error);
      }
    }
    return records;
  }

  save(record: SessionRecord): Promise<void> {
    const text = JSON.stringify(record);
    return this.chain(record.sessionId, () => this.writeAtomically(record.sessionId, text));
  }

  delete(sessionId: string): Promise<void> {
    return this.chain(sessionId, () => rm(this.fileOf(sessionId), { force: true }));
  }

  /** Resolves when every write started so far is on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private chain(sessionId: string, step: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(sessionId) ?? Promise.resolve()).then(step);
    // The caller hears of a failure through `next`; the chain only orders the next step after this one.
    const settled = next.catch(() => undefined);
    this.chains.set(sessionId, settled);
    void settled.then(() => {
      if (this.chains.get(sessionId) === settled) this.chains.delete(sessionId);
    });
    return next;
  }

  private async writeAtomically(sessionId: string, text: string): Promise<void> {
    const target = this.fileOf(sessionId);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  }

  private fileOf(sessionId: string): string {
    return join(this.dir, `${sessionId}.json`);
  }
}
