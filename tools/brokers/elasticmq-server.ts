import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureElasticMqJars, type ElasticMqJarsOptions } from './elasticmq-jars.js';
import { freePort } from './free-port.js';
import { findJava } from './kafka-server.js';
import { spawnManaged } from './managed-process.js';
import { launchOnFreePorts, ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export { DEFAULT_ELASTICMQ_VERSION, elasticMqHome, ensureElasticMqJars, type ElasticMqJarsOptions } from './elasticmq-jars.js';

export const DEFAULT_ELASTICMQ_JVM_OPTIONS: readonly string[] = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:+ExitOnOutOfMemoryError', '-Djava.awt.headless=true'];

export interface ElasticMqServerOptions extends ElasticMqJarsOptions {
  /** SQS REST port; a free loopback port when omitted. */
  readonly port?: number;
  /** Where queues and messages are kept; a temporary folder (deleted when this process exits) when omitted. */
  readonly dataDir?: string;
  /**
   * Keep queues and messages on disk (default true), so `kill()` + `restart()` behaves
   * like SQS, where a queue and what it holds outlive any server. Off: everything is in
   * memory and a restart starts empty.
   */
  readonly persistent?: boolean;
  readonly jvmOptions?: readonly string[];
  /** How long to wait for the server to answer (default 60 s). */
  readonly startTimeoutMs?: number;
}

export interface ElasticMqServerHandle {
  /** SQS endpoint: `http://127.0.0.1:<port>`. Any region and credentials are accepted. */
  readonly endpoint: string;
  readonly port: number;
  /** Pid of the current JVM (changes on restart). */
  readonly pid: number;
  readonly dataDir: string;
  readonly logFile: string;
  /** SIGTERM and wait for the exit. Data stays for `restart()`. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash, for fault tests. */
  kill(): Promise<void>;
  /** Starts again on the same port with the same data, after stop/kill or while running. */
  restart(): Promise<void>;
}

/** ElasticMQ's HOCON config: loopback only, queue URLs naming the real port, SQS size limits relaxed. */
export function elasticMqConfig(port: number, dataDir: string | undefined): string {
  const lines = [
    'include classpath("application.conf")',
    `node-address { protocol = "http", host = "127.0.0.1", port = ${port}, context-path = "" }`,
    // relaxed: bodies up to 1 MiB as SQS now allows (strict still enforces the old 256 KiB).
    `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = relaxed }`,
    'generate-node-address = false',
  ];
  if (dataDir !== undefined) {
    // The H2 store keeps queues as well as messages; WRITE_DELAY=0 commits each change at
    // once, so a kill -9 right after a send loses nothing (H2's default delays by ~0.5 s).
    lines.push(`messages-storage { enabled = true, uri = ${JSON.stringify(`jdbc:h2:${join(dataDir, 'messages')};WRITE_DELAY=0`)}, prune-data-on-init = false }`);
  }
  return `${lines.join('\n')}\n`;
}

/** One readiness attempt: ListQueues over the SQS JSON protocol must answer. */
async function probeListQueues(endpoint: string): Promise<void> {
  const response = await fetch(`${endpoint}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
    body: '{}',
    signal: AbortSignal.timeout(2_000),
  });
  const body = await response.text();
  if (!response.ok || !body.includes('QueueUrls')) throw new Error(`ListQueues answered ${response.status}: ${body.slice(0, 120)}`);
}

export async function startElasticMqServer(options: ElasticMqServerOptions = {}): Promise<ElasticMqServerHandle> {
  const libs = await ensureElasticMqJars(options);
  const java = findJava();
  const workDir = createWorkDir('agent-rpc-elasticmq-');
  const dataDir = options.dataDir ?? join(workDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const logFile = join(workDir, 'server.log');
  const configFile = join(workDir, 'elasticmq.conf');
  const persistent = options.persistent ?? true;
  let port = options.port ?? (await freePort());
  const server = new ServerProcess('elasticmq', async () => {
    writeFileSync(configFile, elasticMqConfig(port, persistent ? dataDir : undefined));
    const jvm = [...(options.jvmOptions ?? DEFAULT_ELASTICMQ_JVM_OPTIONS), `-Dconfig.file=${configFile}`];
    const ready = { name: `elasticmq on 127.0.0.1:${port}`, timeoutMs: options.startTimeoutMs ?? 60_000, probe: () => probeListQueues(`http://127.0.0.1:${port}`) };
    return spawnReady(() => spawnManaged(java, [...jvm, '-cp', `${libs}/*`, 'org.elasticmq.server.Main'], { logFile, cwd: workDir }), ready, logFile);
  }, 15_000);
  await launchOnFreePorts(() => server.launch(), {
    fixed: options.port !== undefined,
    portTaken: /address already in use|BindException/i,
    choosePorts: async () => void (port = await freePort()),
  });

  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    get pid() {
      return server.pid;
    },
    dataDir,
    logFile,
    stop: () => server.stop(),
    kill: () => server.kill(),
    restart: () => server.restart(),
  };
}
