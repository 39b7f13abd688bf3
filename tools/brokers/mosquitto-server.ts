import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { findExecutable, spawnManaged } from './managed-process.js';
import { launchOnFreePorts, ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export interface MosquittoServerOptions {
  /** Client port; a free loopback port when omitted. */
  readonly port?: number;
  /** Messages queued per offline session (and in flight beyond the window). Default 1,000,000. */
  readonly maxQueuedMessages?: number;
  /**
   * Seconds between saves of the persistence file. Mosquitto keeps sessions and queued
   * messages in memory and writes them out on this interval and at a clean stop, so a
   * kill -9 loses what arrived since the last save. Default 1.
   */
  readonly autosaveIntervalS?: number;
  /** How long to wait for the server to answer (default 20 s). */
  readonly startTimeoutMs?: number;
}

export interface MosquittoServerHandle {
  /** `mqtt://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Pid of the current server process (changes on restart). */
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM and wait for the exit: the sessions are saved, so `restart()` can follow. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash, for fault tests. */
  kill(): Promise<void>;
  /** Starts again on the same port with the same persistence file. */
  restart(): Promise<void>;
}

const installHint = 'run tools/brokers/install-mosquitto.sh (installs the Debian package mosquitto)';

export function findMosquittoBinary(): string {
  const binary = findExecutable('mosquitto', ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto']);
  if (binary === undefined) throw new Error(`mosquitto not found on PATH or in /usr/sbin: ${installHint}`);
  return binary;
}

/** MQTT 3.1.1 CONNECT with an empty client id and a clean session: the smallest valid greeting. */
const CONNECT = Buffer.from([0x10, 12, 0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 0x02, 0, 60, 0, 0]);

/**
 * One readiness attempt: our process has logged that it runs (after binding its port, so
 * a server that already holds the port is never taken for ours: ours exits instead), and
 * the port answers a CONNECT with a CONNACK.
 */
function probe(port: number, logFile: string, logStart: number): Promise<void> {
  const log = readFileSync(logFile, 'utf8').slice(logStart);
  if (!/mosquitto version \S+ running/.test(log)) return Promise.reject(new Error('not running yet'));
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(2_000, () => fail(new Error('no CONNACK within 2 s')));
    socket.once('error', fail);
    socket.once('connect', () => socket.write(CONNECT));
    socket.once('data', (chunk: Buffer) => {
      socket.destroy();
      if (chunk[0] === 0x20 && chunk[3] === 0) resolve();
      else reject(new Error(`unexpected answer to CONNECT: ${chunk.subarray(0, 4).toString('hex')}`));
    });
  });
}

function configText(port: number, workDir: string, options: MosquittoServerOptions): string {
  return [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous true',
    'persistence true',
    `persistence_location ${workDir}/`,
    'persistence_file mosquitto.db',
    `autosave_interval ${options.autosaveIntervalS ?? 1}`,
    `max_queued_messages ${options.maxQueuedMessages ?? 1_000_000}`,
    'max_queued_bytes 0',
    'set_tcp_nodelay true',
    // Started as root, Mosquitto would switch to the `mosquitto` user, who cannot write here.
    `user ${userInfo().username}`,
    // stderr is unbuffered: the readiness probe reads the log.
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    'log_type notice',
    'log_type information',
    '',
  ].join('\n');
}

/** A Mosquitto (MQTT 5) on a free loopback port, its sessions kept in a temporary folder across restarts. */
export async function startMosquittoServer(options: MosquittoServerOptions = {}): Promise<MosquittoServerHandle> {
  const binary = findMosquittoBinary();
  const workDir = createWorkDir('agent-rpc-mosquitto-');
  const logFile = join(workDir, 'mosquitto.log');
  const configFile = join(workDir, 'mosquitto.conf');
  writeFileSync(logFile, '');
  let port = options.port ?? (await freePort());
  const server = new ServerProcess('mosquitto', async () => {
    writeFileSync(configFile, configText(port, workDir, options));
    const logStart = statSync(logFile).size;
    const ready = { name: `mosquitto on port ${port}`, timeoutMs: options.startTimeoutMs ?? 20_000, probe: () => probe(port, logFile, logStart) };
    return spawnReady(() => spawnManaged(binary, ['-c', configFile], { logFile, cwd: workDir }), ready, logFile);
  }, 10_000);
  await launchOnFreePorts(() => server.launch(), {
    fixed: options.port !== undefined,
    portTaken: /address already in use/i,
    choosePorts: async () => void (port = await freePort()),
  });

  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    get pid() {
      return server.pid;
    },
    logFile,
    stop: () => server.stop(),
    kill: () => server.kill(),
    restart: () => server.restart(),
  };
}
