import { existsSync, mkdirSync } from 'node:fs';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFileLock } from './file-lock.js';
import { findExecutable, spawnManaged, withLogTail } from './managed-process.js';

export const DEFAULT_KAFKA_VERSION = '3.9.1';

// kafka_2.13's pom names no logging backend; these are the ones the Kafka 3.9
// distribution ships, so log4j.properties works and the broker's log4j MBean loads.
const LOGGING_JARS = [
  { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: '1.7.36' },
  { groupId: 'ch.qos.reload4j', artifactId: 'reload4j', version: '1.2.25' },
] as const;

// Pinned so the result does not depend on which plugin version Maven defaults to.
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies';

export type MavenRunner = (args: readonly string[], cwd: string) => Promise<void>;

export interface KafkaJarsOptions {
  /** Kafka version (default 3.9.1). */
  readonly version?: string;
  /** Cache root (default `$AGENT_RPC_CACHE_DIR` or `<repo>/.cache`). */
  readonly cacheDir?: string;
  /** Runs Maven; replaceable to observe or forbid downloads. */
  readonly runMaven?: MavenRunner;
  /** Progress messages (download start, waiting for another process). */
  readonly log?: (message: string) => void;
}

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

/** `<cache>/kafka-<version>`: holds libs/, the marker, the pom and the class archive. */
export function kafkaHome(options: Pick<KafkaJarsOptions, 'version' | 'cacheDir'> = {}): string {
  return join(options.cacheDir ?? defaultCacheDir(), `kafka-${options.version ?? DEFAULT_KAFKA_VERSION}`);
}

function pomXml(version: string): string {
  const dependency = (g: string, a: string, v: string): string =>
    `    <dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated: lists the jars a single-node Kafka broker needs at runtime. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.agent-rpc</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencies>
${[dependency('org.apache.kafka', 'kafka_2.13', version), ...LOGGING_JARS.map((j) => dependency(j.groupId, j.artifactId, j.version))].join('\n')}
  </dependencies>
</project>
`;
}

const defaultRunMaven: MavenRunner = async (args, cwd) => {
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

const markerName = '.libs-complete';
const inflight = new Map<string, Promise<string>>();

/**
 * Makes sure the jars of Kafka `version` and its runtime dependencies are in
 * `<cache>/kafka-<version>/libs` and returns that folder. The marker file is written
 * after the folder is complete, so a cached run returns without starting Maven; a lock
 * file keeps concurrent test workers from downloading at the same time.
 */
export function ensureKafkaJars(options: KafkaJarsOptions = {}): Promise<string> {
  const home = kafkaHome(options);
  const libs = join(home, 'libs');
  if (existsSync(join(home, markerName)) && existsSync(libs)) return Promise.resolve(libs);
  // Within one process, share the download instead of queueing on our own lock.
  const pending = inflight.get(home) ?? download(home, libs, options).finally(() => inflight.delete(home));
  inflight.set(home, pending);
  return pending;
}

async function download(home: string, libs: string, options: KafkaJarsOptions): Promise<string> {
  const version = options.version ?? DEFAULT_KAFKA_VERSION;
  const log = options.log ?? (() => undefined);
  mkdirSync(home, { recursive: true });
  return withFileLock(
    `${home}.lock`,
    async () => {
      // Someone else may have finished while we waited for the lock.
      if (existsSync(join(home, markerName)) && existsSync(libs)) return libs;
      const partial = join(home, `libs.partial-${process.pid}`);
      await rm(partial, { recursive: true, force: true });
      await writeFile(join(home, 'pom.xml'), pomXml(version));
      log(`fetching Kafka ${version} jars with Maven into ${libs}`);
      const runMaven = options.runMaven ?? defaultRunMaven;
      await runMaven(['-B', '-ntp', '-f', 'pom.xml', DEPENDENCY_PLUGIN, '-DincludeScope=runtime', `-DoutputDirectory=${partial}`], home);
      const jars = (await readdir(partial)).filter((name) => name.endsWith('.jar')).sort();
      if (!jars.includes(`kafka_2.13-${version}.jar`)) {
        throw new Error(`Maven finished but ${partial} has no kafka_2.13-${version}.jar`);
      }
      // Swap the complete folder in, then write the marker last.
      await rm(libs, { recursive: true, force: true });
      await rename(partial, libs);
      await writeFile(join(home, markerName), `${JSON.stringify({ version, jars }, null, 2)}\n`);
      return libs;
    },
    { onWait: (owner) => log(`waiting for ${owner} to finish fetching Kafka ${version} jars`) },
  );
}
