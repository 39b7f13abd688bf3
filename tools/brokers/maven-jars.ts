import { existsSync, mkdirSync } from 'node:fs';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFileLock } from './file-lock.js';
import { findExecutable, spawnManaged, withLogTail } from './managed-process.js';

// Pinned so the result does not depend on which plugin version Maven defaults to.
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies';
const markerName = '.libs-complete';

export type MavenRunner = (args: readonly string[], cwd: string) => Promise<void>;

function repoRoot(): string {
  // Works both from tools/brokers (vitest) and dist/tools/brokers (compiled).
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root (no package.json above tools/brokers)');
    dir = parent;
  }
  return dir;
}

export function defaultCacheDir(): string {
  return resolve(process.env['AGENT_RPC_CACHE_DIR'] ?? join(repoRoot(), '.cache'));
}

/** Runs `mvn` with its output in `<cwd>/mvn.log`; a failure carries the log tail. */
export const defaultRunMaven: MavenRunner = async (args, cwd) => {
  const mvn = findExecutable('mvn');
  if (mvn === undefined) throw new Error('mvn not found on PATH: install Maven (apt-get install -y maven)');
  const logFile = join(cwd, 'mvn.log');
  await rm(logFile, { force: true });
  const child = await spawnManaged(mvn, args, { logFile, cwd });
  const exit = await child.exited;
  if (exit.code !== 0) {
    throw new Error(withLogTail(`mvn ${args.join(' ')} failed (code ${String(exit.code)}, signal ${String(exit.signal)})`, logFile));
  }
};

export interface MavenJars {
  /** What is fetched, for progress messages: `Kafka 3.9.1`. */
  readonly label: string;
  readonly version: string;
  /** `<cache>/<name>-<version>`: gets libs/, the marker and the pom. */
  readonly home: string;
  /** A pom whose runtime dependencies are the jars wanted. */
  readonly pom: string;
  /** The jar whose presence shows Maven fetched the right thing. */
  readonly mainJar: string;
  /** Runs Maven; replaceable to observe or forbid downloads. */
  readonly runMaven?: MavenRunner;
  /** Progress messages (download start, waiting for another process). */
  readonly log?: (message: string) => void;
}

const inflight = new Map<string, Promise<string>>();

/**
 * Makes sure the jars of `pom` are in `<home>/libs` and returns that folder. The marker file
 * is written after the folder is complete, so a cached run returns without starting Maven;
 * a lock file keeps concurrent test workers from downloading at the same time.
 */
export function ensureMavenJars(jars: MavenJars): Promise<string> {
  const libs = join(jars.home, 'libs');
  if (existsSync(join(jars.home, markerName)) && existsSync(libs)) return Promise.resolve(libs);
  // Within one process, share the download instead of queueing on our own lock.
  const pending = inflight.get(jars.home) ?? download(jars, libs).finally(() => inflight.delete(jars.home));
  inflight.set(jars.home, pending);
  return pending;
}

async function download(spec: MavenJars, libs: string): Promise<string> {
  const { home, version } = spec;
  const log = spec.log ?? (() => undefined);
  mkdirSync(home, { recursive: true });
  return withFileLock(
    `${home}.lock`,
    async () => {
      // Someone else may have finished while we waited for the lock.
      if (existsSync(join(home, markerName)) && existsSync(libs)) return libs;
      const partial = join(home, `libs.partial-${process.pid}`);
      await rm(partial, { recursive: true, force: true });
      await writeFile(join(home, 'pom.xml'), spec.pom);
      log(`fetching ${spec.label} jars with Maven into ${libs}`);
      const runMaven = spec.runMaven ?? defaultRunMaven;
      await runMaven(['-B', '-ntp', '-f', 'pom.xml', DEPENDENCY_PLUGIN, '-DincludeScope=runtime', `-DoutputDirectory=${partial}`], home);
      const jars = (await readdir(partial)).filter((name) => name.endsWith('.jar')).sort();
      if (!jars.includes(spec.mainJar)) throw new Error(`Maven finished but ${partial} has no ${spec.mainJar}`);
      // Swap the complete folder in, then write the marker last.
      await rm(libs, { recursive: true, force: true });
      await rename(partial, libs);
      await writeFile(join(home, markerName), `${JSON.stringify({ version, jars }, null, 2)}\n`);
      return libs;
    },
    { onWait: (owner) => log(`waiting for ${owner} to finish fetching ${spec.label} jars`) },
  );
}
