import { join } from 'node:path';
import { defaultCacheDir, ensureMavenJars, type MavenRunner } from './maven-jars.js';

export const DEFAULT_ELASTICMQ_VERSION = '1.7.1';

export interface ElasticMqJarsOptions {
  /** ElasticMQ version (default 1.7.1). */
  readonly version?: string;
  /** Cache root (default `$AGENT_RPC_CACHE_DIR` or `<repo>/.cache`). */
  readonly cacheDir?: string;
  /** Runs Maven; replaceable to observe or forbid downloads. */
  readonly runMaven?: MavenRunner;
  readonly log?: (message: string) => void;
}

/** `<cache>/elasticmq-<version>`: holds libs/, the marker and the pom. */
export function elasticMqHome(options: Pick<ElasticMqJarsOptions, 'version' | 'cacheDir'> = {}): string {
  return join(options.cacheDir ?? defaultCacheDir(), `elasticmq-${options.version ?? DEFAULT_ELASTICMQ_VERSION}`);
}

function pomXml(version: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated: the jars of the ElasticMQ server (SQS-compatible) and its runtime dependencies. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.agent-rpc</groupId>
  <artifactId>elasticmq-runtime</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.elasticmq</groupId><artifactId>elasticmq-server_2.13</artifactId><version>${version}</version></dependency>
  </dependencies>
</project>
`;
}

/**
 * Makes sure the ElasticMQ server jars are in `<cache>/elasticmq-<version>/libs` and
 * returns that folder, fetched once from Maven Central the way Kafka's are.
 */
export function ensureElasticMqJars(options: ElasticMqJarsOptions = {}): Promise<string> {
  const version = options.version ?? DEFAULT_ELASTICMQ_VERSION;
  return ensureMavenJars({
    ...options,
    label: `ElasticMQ ${version}`,
    version,
    home: elasticMqHome(options),
    pom: pomXml(version),
    mainJar: `elasticmq-server_2.13-${version}.jar`,
  });
}
