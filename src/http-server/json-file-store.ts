import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../files/index.js';

/** A record's file name without `.json`; temporary files (`.json.tmp`) never match. */
const FILE_RE = /^([A-Za-z0-9_-]{1,128})\.json$/;
const PARALLEL_READS = 16;

/**
 * Records on disk, one JSON file per record in one directory (sessions under
 * `<dataDir>/sessions/`, A2A tasks under `<dataDir>/a2a-tasks/<agent>/`), each replaced
 * atomically and durably (writeFileAtomically) so a crash leaves the old or the new state,
 * never half of one. Writes of one record are chained, so the last state wins.
 */
export class JsonFileStore<T> {
  private readonly chains = new Map<string, Promise<void>>();

  private constructor(
    private readonly dir: string,
    /** The record's file name (without `.json`): 1-128 characters of [A-Za-z0-9_-]. */
    private readonly nameOf: (record: T) => string,
  ) {}

  static async open<T>(dir: string, nameOf: (record: T) => string): Promise<JsonFileStore<T>> {
    await mkdir(dir, { recursive: true });
    return new JsonFileStore(dir, nameOf);
  }

  /** Every stored record; files that cannot be read are reported, not fatal. */
  async loadAll(onBadFile: (file: string, error: unknown) => void): Promise<T[]> {
    const records: T[] = [];
    const files = (await readdir(this.dir)).filter((name) => FILE_RE.test(name)).map((name) => join(this.dir, name));
    // A few reads at a time: thousands of small files open in a fraction of the time one by one takes.
    const readNext = async (): Promise<void> => {
      for (let file = files.pop(); file !== undefined; file = files.pop()) {
        try {
          records.push(JSON.parse(await readFile(file, 'utf8')) as T);
        } catch (error) {
          onBadFile(file, error);
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_READS }, readNext));
    return records;
  }

  save(record: T): Promise<void> {
    const name = this.checkedName(this.nameOf(record));
    const text = JSON.stringify(record);
    return this.chain(name, () => writeFileAtomically(this.fileOf(name), text));
  }

  /** Removes the file named `name` (see nameOf); a missing file is no error. */
  delete(name: string): Promise<void> {
    return this.chain(name, () => rm(this.fileOf(this.checkedName(name)), { force: true }));
  }

  /** Resolves when every write started so far is on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private checkedName(name: string): string {
    // A name is never a path: nothing a client sends can reach outside the directory.
    if (!FILE_RE.test(`${name}.json`)) throw new TypeError(`JsonFileStore: ${JSON.stringify(name)} is not a record name`);
    return name;
  }

  private chain(name: string, step: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(name) ?? Promise.resolve()).then(step);
    // The caller hears of a failure through `next`; the chain only orders the next step after this one.
    const settled = next.catch(() => undefined);
    this.chains.set(name, settled);
    void settled.then(() => {
      if (this.chains.get(name) === settled) this.chains.delete(name);
    });
    return next;
  }

  private fileOf(name: string): string {
    return join(this.dir, `${name}.json`);
  }
}
