import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { findExecutable, spawnManaged } from './managed-process.js';
import { ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export interface RedisServerHandle {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** SIGTERM and wait for the exit; `restart()` may follow. */
  stop(): Promise<void>;
  restart(): Promise<void>;
}

const installHint = 'run tools/brokers/install-redis-server.sh (installs the Debian package redis-server)';

/**
 * One readiness attempt: ask for the dump file name, which is unique to our process, so a
 * Redis that already holds the port (a system service on 6379) is never mistaken for ours.
 */
function probe(port: number, marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    socket.setTimeout(2_000, () => fail(new Error('no answer within 2 s')));
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('connect', () => socket.write('CONFIG GET dbfilename\r\n'));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.includes(marker)) {
        socket.destroy();
        return resolve();
      }
      // A complete reply without our marker (or an error reply): someone else's Redis.
      if (received.startsWith('-') || received.split('\r\n').length >= 6) fail(new Error(`port ${port} is served by another Redis`));
    });
  });
}

/** A throw-away redis-server on a free loopback port (no persistence), for tests. */
export async function startRedisServer(options: { readonly startTimeoutMs?: number } = {}): Promise<RedisServerHandle> {
  const binary = findExecutable('redis-server', ['/usr/bin/redis-server', '/usr/local/bin/redis-server']);
  if (binary === undefined) throw new Error(`redis-server not found on PATH or in /usr/bin: ${installHint}`);
  const workDir = createWorkDir('agent-rpc-redis-');
  const logFile = join(workDir, 'redis-server.log');
  const marker = `agent-rpc-${randomUUID()}.rdb`;
  const port = await freePort();
  const server = new ServerProcess('redis-server', async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', workDir, '--dbfilename', marker, '--logfile', ''];
    const ready = { name: `redis-server on port ${port}`, timeoutMs: options.startTimeoutMs ?? 20_000, probe: () => probe(port, marker) };
    return spawnReady(() => spawnManaged(binary, args, { logFile, cwd: workDir }), ready, logFile);
  }, 10_000);
  await server.launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => server.stop(),
    restart: () => server.restart(),
  };
}
