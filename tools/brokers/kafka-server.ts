import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts } from './free-port.js';
import { classArchiveFlags, sharedArchiveFlags } from './kafka-class-archive.js';
import { log4jProperties, randomClusterId, serverProperties, type KafkaPorts, type KafkaSaslUsers } from './kafka-config.js';
import { ensureKafkaJars, kafkaHome, type KafkaJarsOptions } from './kafka-jars.js';
import { probeKafka } from './kafka-probe.js';
import { findExecutable, spawnManaged, withLogTail, type ManagedProcess } from './managed-process.js';
import { launchOnFreePorts, ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export { DEFAULT_KAFKA_VERSION, ensureKafkaJars, kafkaHome, type KafkaJarsOptions } from './kafka-jars.js';
export { type MavenRunner } from './maven-jars.js';

// Measured on 2 cores (start to ready): class-data sharing (see kafka-class-archive.ts)
// takes ~3.1 s down to ~1.7 s; GC and JIT flags change it by under 0.2 s, so the JIT is
// left alone (C1-only would slow brokers used by benchmarks). Serial GC keeps the JVM
// from adding parallel GC threads on a small machine. Replace via `jvmOptions`.
export const DEFAULT_KAFKA_JVM_OPTIONS: readonly string[] = [
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

export interface KafkaServerOptions extends KafkaJarsOptions {
  /** PLAINTEXT listener port; free one when omitted. */
  readonly brokerPort?: number;
  /** KRaft controller port; free one when omitted. */
  readonly controllerPort?: number;
  /** Data directory; a temporary one (deleted when this process exits) when omitted. */
  readonly logDir?: string;
  /** Extra or overriding server.properties entries. */
  readonly properties?: Readonly<Record<string, string>>;
  /** JVM options instead of DEFAULT_KAFKA_JVM_OPTIONS. */
  readonly jvmOptions?: readonly string[];
  /** Reuse a class-data archive kept next to the jars, ~40% faster start (default true). */
  readonly classDataSharing?: boolean;
  /** How long to wait for the broker to answer (default 120 s). */
  readonly startTimeoutMs?: number;
  /** Also listen with SASL_PLAINTEXT (mechanism PLAIN) for these users, on a free port (`saslBrokers`). */
  readonly saslUsers?: KafkaSaslUsers;
}

export interface KafkaServerHandle {
  /** Bootstrap servers for kafkajs: `['127.0.0.1:<port>']`. */
  readonly brokers: string[];
  /** Bootstrap servers of the SASL_PLAINTEXT listener, when started with `saslUsers`. */
  readonly saslBrokers: string[] | undefined;
  readonly brokerPort: number;
  readonly controllerPort: number;
  /** Pid of the current JVM (changes on restart). */
  readonly pid: number;
  readonly clusterId: string;
  readonly logDir: string;
  /** The broker's log4j output, stdout and stderr. */
  readonly logFile: string;
  /** SIGTERM (controlled shutdown) and wait for the exit. Data stays for `restart()`. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash, for fault tests. */
  kill(): Promise<void>;
  /** Starts again with the same ports and data, after stop/kill or while running. */
  restart(): Promise<void>;
}

/** The `java` on PATH or in $JAVA_HOME/bin (the JVM brokers need 17+). */
export function findJava(): string {
  const javaHome = process.env['JAVA_HOME'];
  const fallbacks = javaHome === undefined ? [] : [join(javaHome, 'bin', 'java')];
  const java = findExecutable('java', fallbacks);
  if (java === undefined) throw new Error('java not found on PATH or in $JAVA_HOME/bin: install a JDK 17+ (apt-get install -y openjdk-17-jdk-headless)');
  return java;
}

export async function startKafkaServer(options: KafkaServerOptions = {}): Promise<KafkaServerHandle> {
  const libs = await ensureKafkaJars(options);
  const java = findJava();
  const home = kafkaHome(options);
  const classpath = `${libs}/*`;
  const jvmOptions = [...(options.jvmOptions ?? DEFAULT_KAFKA_JVM_OPTIONS)];
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const workDir = createWorkDir('agent-rpc-kafka-');
  const logDir = options.logDir ?? join(workDir, 'data');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(workDir, 'server.log');
  const propertiesFile = join(workDir, 'server.properties');
  const log4jFile = join(workDir, 'log4j.properties');
  writeFileSync(log4jFile, log4jProperties());
  // A reused logDir must keep the cluster id it was first formatted with.
  const clusterId = readClusterId(logDir) ?? randomClusterId();
  const fixedPorts = options.brokerPort !== undefined || options.controllerPort !== undefined;
  let ports: KafkaPorts = await choosePorts(options);

  const runJava = async (mainClass: string, args: readonly string[], extraJvm: readonly string[] = []): Promise<ManagedProcess> =>
    spawnManaged(java, [...jvmOptions, ...extraJvm, `-Dlog4j.configuration=file:${log4jFile}`, '-cp', classpath, mainClass, ...args], {
      logFile,
      cwd: workDir,
    });

  const format = async (): Promise<void> => {
    writeFileSync(propertiesFile, serverProperties(ports, logDir, options.properties, options.saslUsers));
    // --ignore-formatted: a caller-provided logDir may already hold this cluster's data.
    const archive = options.classDataSharing === false ? [] : sharedArchiveFlags(home, java);
    const tool = await runJava('kafka.tools.StorageTool', ['format', '-t', clusterId, '-c', propertiesFile, '--ignore-formatted'], archive);
    const exit = await tool.exited;
    if (exit.code !== 0) throw new Error(withLogTail(`kafka StorageTool format failed (code ${String(exit.code)})`, logFile));
  };

  const server = new ServerProcess('kafka', async () => {
    const archive = options.classDataSharing === false ? undefined : classArchiveFlags(home, java);
    const spawn = async (): Promise<ManagedProcess> => {
      const child = await runJava('kafka.Kafka', [propertiesFile], archive?.flags ?? []);
      archive?.adopt(child);
      return child;
    };
    const ready = { name: `kafka broker on 127.0.0.1:${ports.broker}`, timeoutMs, probe: () => probeKafka([`127.0.0.1:${ports.broker}`], clusterId) };
    return spawnReady(spawn, ready, logFile);
  }, 30_000);

  // Ports picked here may be taken before the JVM binds them: pick others and retry.
  await launchOnFreePorts(
    async () => {
      await format();
      await server.launch();
    },
    { fixed: fixedPorts, portTaken: /address already in use/i, choosePorts: async () => void (ports = await choosePorts(options)) },
  );

  return {
    brokers: [`127.0.0.1:${ports.broker}`],
    saslBrokers: ports.sasl === undefined ? undefined : [`127.0.0.1:${ports.sasl}`],
    brokerPort: ports.broker,
    controllerPort: ports.controller,
    get pid() {
      return server.pid;
    },
    clusterId,
    logDir,
    logFile,
    stop: () => server.stop(),
    kill: () => server.kill(),
    restart: () => server.restart(),
  };
}

async function choosePorts(options: KafkaServerOptions): Promise<KafkaPorts> {
  const [broker, controller, sasl] = await freePorts(options.saslUsers ? 3 : 2);
  if (broker === undefined || controller === undefined) throw new Error('no free ports');
  return { broker: options.brokerPort ?? broker, controller: options.controllerPort ?? controller, ...(options.saslUsers ? { sasl } : {}) };
}

function readClusterId(logDir: string): string | undefined {
  try {
    const meta = readFileSync(join(logDir, 'meta.properties'), 'utf8');
    return /^cluster\.id=(.+)$/m.exec(meta)?.[1]?.trim();
  } catch {
    return undefined;
  }
}
