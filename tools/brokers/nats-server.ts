import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { findExecutable, spawnManaged } from './managed-process.js';
import { launchOnFreePorts, ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export interface NatsServerOptions {
  /** Enables JetStream with a file store (default false). */
  readonly jetstream?: boolean;
  /** Client port; a free loopback port when omitted. */
  readonly port?: number;
  /** JetStream store directory; a temporary one (deleted when this process exits) when omitted. */
  readonly storeDir?: string;
  /** How long to wait for the server to answer (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Serve TLS with these PEM files; with `caFile`, clients must present a certificate it signed (mTLS). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly caFile?: string };
}

export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Pid of the current server process (changes on restart). */
  readonly pid: number;
  /** JetStream store directory, when JetStream is on. */
  readonly storeDir: string | undefined;
  readonly logFile: string;
  /** SIGTERM and wait for the exit. Data stays, so `restart()` can follow. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash, for fault tests. */
  kill(): Promise<void>;
  /** Starts again on the same port with the same store, after stop/kill or while running. */
  restart(): Promise<void>;
}

const installHint = 'run tools/brokers/install-nats-server.sh (installs the Debian package nats-server)';

export function findNatsServerBinary(): string {
  const binary = findExecutable('nats-server', ['/usr/sbin/nats-server', '/usr/local/bin/nats-server']);
  if (binary === undefined) throw new Error(`nats-server not found on PATH or in /usr/sbin: ${installHint}`);
  return binary;
}

/**
 * One readiness attempt: connect and read the INFO line the server sends first. The
 * name check makes sure the answer comes from our process, not from another server
 * that holds the port (ours then fails to bind and exits).
 */
function probeInfo(port: number, serverName: string, needJetStream: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(2_000, () => fail(new Error('no INFO line within 2 s')));
    socket.once('error', fail);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n');
      if (end < 0) return;
      const line = received.slice(0, end);
      socket.destroy();
      if (!line.startsWith('INFO ')) return reject(new Error(`unexpected greeting: ${line.slice(0, 80)}`));
      const info = JSON.parse(line.slice(5)) as { jetstream?: boolean; server_name?: string };
      if (info.server_name !== serverName) return reject(new Error(`port ${port} is served by another server (${String(info.server_name)})`));
      // JetStream recovers its streams before clients are accepted, but check it is on.
      if (needJetStream && info.jetstream !== true) return reject(new Error('JetStream not enabled yet'));
      resolve();
    });
  });
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const binary = findNatsServerBinary();
  const jetstream = options.jetstream ?? false;
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const workDir = createWorkDir('agent-rpc-nats-');
  const logFile = join(workDir, 'nats-server.log');
  const storeDir = jetstream ? (options.storeDir ?? join(workDir, 'jetstream')) : undefined;
  let port = options.port ?? (await freePort());
  const server = new ServerProcess('nats-server', async () => {
    const serverName = `agent-rpc-test-${randomUUID()}`;
    const args = ['-a', '127.0.0.1', '-p', String(port), '-n', serverName];
    if (storeDir !== undefined) args.push('-js', '-sd', storeDir);
    if (options.tls) {
      args.push('--tls', '--tlscert', options.tls.certFile, '--tlskey', options.tls.keyFile);
      if (options.tls.caFile !== undefined) args.push('--tlscacert', options.tls.caFile, '--tlsverify');
    }
    const ready = { name: `nats-server on port ${port}`, timeoutMs, probe: () => probeInfo(port, serverName, jetstream) };
    return spawnReady(() => spawnManaged(binary, args, { logFile, cwd: workDir }), ready, logFile);
  }, 10_000);
  await launchOnFreePorts(() => server.launch(), {
    fixed: options.port !== undefined,
    portTaken: /address already in use/i,
    choosePorts: async () => void (port = await freePort()),
  });

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return server.pid;
    },
    storeDir,
    logFile,
    stop: () => server.stop(),
    kill: () => server.kill(),
    restart: () => server.restart(),
  };
}
