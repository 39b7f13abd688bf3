import { join } from 'node:path';
import { defaultCacheDir, ensureMavenJars, type MavenRunner } from './maven-jars.js';

export const DEFAULT_KAFKA_VERSION = '3.9.1';

// kafka_2.13's pom names no logging backend; these are the ones the Kafka 3.9
// distribution ships, so log4j.properties works and the broker's log4j MBean loads.
const LOGGING_JARS = [
  { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: '1.7.36' },
  { groupId: 'ch.qos.reload4j', artifactId: 'reload4j', version: '1.2.25' },
] as const;

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

/**
 * Makes sure the jars of Kafka `version` and its runtime dependencies are in
 * `<cache>/kafka-<version>/libs` and returns that folder (see ensureMavenJars).
 */
export function ensureKafkaJars(options: KafkaJarsOptions = {}): Promise<string> {
  const version = options.version ?? DEFAULT_KAFKA_VERSION;
  return ensureMavenJars({ ...options, label: `Kafka ${version}`, version, home: kafkaHome(options), pom: pomXml(version), mainJar: `kafka_2.13-${version}.jar` });
}
