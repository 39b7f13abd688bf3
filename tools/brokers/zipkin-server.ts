import { join } from 'node:path';
import { ensureZipkinJars, zipkinJarName, DEFAULT_ZIPKIN_VERSION, type ZipkinJarsOptions } from './zipkin-jars.js';
import { freePort } from './free-port.js';
import { findJava } from './kafka-server.js';
import { spawnManaged } from './managed-process.js';
import { launchOnFreePorts, ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export { DEFAULT_ZIPKIN_VERSION, ensureZipkinJars, zipkinHome, type ZipkinJarsOptions } from './zipkin-jars.js';

export const DEFAULT_ZIPKIN_JVM_OPTIONS: readonly string[] = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:+ExitOnOutOfMemoryError', '-Djava.awt.headless=true'];

export interface ZipkinServerOptions extends ZipkinJarsOptions {
  /** HTTP port (API, UI, span intake); a free port when omitted. */
  readonly port?: number;
  readonly jvmOptions?: readonly string[];
  /** How long to wait for `/health` to answer UP (default 90 s). */
  readonly startTimeoutMs?: number;
}

export interface ZipkinServerHandle {
  /** `http://127.0.0.1:<port>`: the UI, `/api/v2/...` and `/health`. */
  readonly url: string;
  /** Where exporters send spans: `<url>/api/v2/spans`. */
  readonly spansEndpoint: string;
  readonly port: number;
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM and wait for the exit (spans are kept in memory only: they go with it). */
  stop(): Promise<void>;
}

/** One readiness attempt: `/health` must say UP. */
async function probeHealth(url: string): Promise<void> {
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
  const body = await response.text();
  if (!response.ok || !body.includes('UP')) throw new Error(`/health answered ${response.status}: ${body.slice(0, 120)}`);
}

/**
 * A Zipkin server (the `exec` jar from Maven Central, fetched once into the cache) with
 * in-memory storage on a free port, ready once `/health` answers UP.
 */
export async function startZipkinServer(options: ZipkinServerOptions = {}): Promise<ZipkinServerHandle> {
  const libs = await ensureZipkinJars(options);
  const jar = join(libs, zipkinJarName(options.version ?? DEFAULT_ZIPKIN_VERSION));
  const java = findJava();
  const workDir = createWorkDir('agent-rpc-zipkin-');
  const logFile = join(workDir, 'server.log');
  let port = options.port ?? (await freePort());
  const server = new ServerProcess('zipkin', async () => {
    const url = `http://127.0.0.1:${port}`;
    // Zipkin reads its settings from the environment: in-memory storage, our port, no self-tracing.
    const env = { ...process.env, QUERY_PORT: String(port), STORAGE_TYPE: 'mem', SELF_TRACING_ENABLED: 'false', JAVA_OPTS: '' };
    const ready = { name: `zipkin on ${url}`, timeoutMs: options.startTimeoutMs ?? 90_000, probe: () => probeHealth(url) };
    return spawnReady(() => spawnManaged(java, [...(options.jvmOptions ?? DEFAULT_ZIPKIN_JVM_OPTIONS), '-jar', jar], { logFile, cwd: workDir, env }), ready, logFile);
  }, 15_000);
  await launchOnFreePorts(() => server.launch(), {
    fixed: options.port !== undefined,
    portTaken: /address already in use|BindException/i,
    choosePorts: async () => void (port = await freePort()),
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    spansEndpoint: `${url}/api/v2/spans`,
    port,
    get pid() {
      return server.pid;
    },
    logFile,
    stop: () => server.stop(),
  };
}
