import { join } from 'node:path';
import { defaultCacheDir, ensureMavenJars, type MavenRunner } from './maven-jars.js';

export const DEFAULT_ZIPKIN_VERSION = '3.5.1';

export interface ZipkinJarsOptions {
  /** Zipkin server version (default 3.5.1). */
  readonly version?: string;
  /** Cache root (default `$AGENT_RPC_CACHE_DIR` or `<repo>/.cache`). */
  readonly cacheDir?: string;
  /** Runs Maven; replaceable to observe or forbid downloads. */
  readonly runMaven?: MavenRunner;
  readonly log?: (message: string) => void;
}

/** `<cache>/zipkin-<version>`: holds libs/, the marker and the pom. */
export function zipkinHome(options: Pick<ZipkinJarsOptions, 'version' | 'cacheDir'> = {}): string {
  return join(options.cacheDir ?? defaultCacheDir(), `zipkin-${options.version ?? DEFAULT_ZIPKIN_VERSION}`);
}

// The `exec` jar is self-contained (Spring Boot): its own dependencies are excluded.
function pomXml(version: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated: the executable jar of the Zipkin server. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.agent-rpc</groupId>
  <artifactId>zipkin-runtime</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.zipkin</groupId><artifactId>zipkin-server</artifactId><version>${version}</version><classifier>exec</classifier>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
  </dependencies>
</project>
`;
}

export function zipkinJarName(version: string = DEFAULT_ZIPKIN_VERSION): string {
  return `zipkin-server-${version}-exec.jar`;
}

/**
 * Makes sure the Zipkin server's executable jar is in `<cache>/zipkin-<version>/libs` and
 * returns that folder, fetched once from Maven Central the way Kafka's jars are.
 */
export function ensureZipkinJars(options: ZipkinJarsOptions = {}): Promise<string> {
  const version = options.version ?? DEFAULT_ZIPKIN_VERSION;
  return ensureMavenJars({
    ...options,
    label: `Zipkin ${version}`,
    version,
    home: zipkinHome(options),
    pom: pomXml(version),
    mainJar: zipkinJarName(version),
  });
}
