import { randomBytes } from 'node:crypto';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePorts } from './free-port.js';
import { findExecutable, spawnManaged, type ManagedProcess } from './managed-process.js';
import { ServerProcess, spawnReady } from './server-process.js';
import { createWorkDir } from './work-dir.js';

export interface RabbitMqServerHandle {
  /** `amqp://guest:guest@127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The Erlang node name, unique per server (`agentrpc-<random>@localhost`). */
  readonly nodeName: string;
  /** Pid of the current server process (changes on restart). */
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM (a clean shutdown) and wait for the exit, epmd too. Data stays, so `restart()` can follow. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash, for fault tests. */
  kill(): Promise<void>;
  /** Starts again on the same ports with the same data, after stop/kill or while running. */
  restart(): Promise<void>;
}

const installHint = 'run tools/brokers/install-rabbitmq-server.sh (installs the Debian package rabbitmq-server)';
/** Debian's /usr/sbin/rabbitmq-server is a wrapper that insists on the rabbitmq user; the real script is here. */
const SCRIPT = '/usr/lib/rabbitmq/bin/rabbitmq-server';

/** Not looked up on PATH: that finds the wrapper. */
export function findRabbitMqServerScript(): string {
  try {
    accessSync(SCRIPT, constants.X_OK);
    return SCRIPT;
  } catch {
    throw new Error(`${SCRIPT} not found: ${installHint}`);
  }
}

/**
 * One readiness attempt in AMQP itself: send the protocol header and read connection.start,
 * whose server properties carry the cluster name — set to the node name, unique to our
 * process, so a system RabbitMQ that holds the port is never mistaken for ours. RabbitMQ opens
 * its AMQP listener only once it has booted, so an answer means it is ready.
 */
function probeAmqp(port: number, nodeName: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(2_000, () => fail(new Error('no connection.start within 2 s')));
    socket.once('error', fail);
    socket.once('connect', () => socket.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // A method frame: type 1, channel 0, size (4 bytes), payload, 0xCE.
      if (received.length < 7) return;
      const size = received.readUInt32BE(3);
      if (received.length < 7 + size + 1) return;
      socket.destroy();
      if (received[0] !== 1) return reject(new Error('not an AMQP 0-9-1 server'));
      if (!received.subarray(7, 7 + size).includes(nodeName)) return reject(new Error(`port ${port} is served by another RabbitMQ`));
      resolve();
    });
  });
}

/**
 * A throw-away RabbitMQ node on free loopback ports, for tests, benchmarks and
 * `npm run brokers`. Everything is its own: node name, data, logs, config, plugins file,
 * Erlang cookie (HOME) and an epmd on a free port, so it never meets a system RabbitMQ or
 * its epmd, and can be stopped, killed and restarted with its queues kept.
 */
export async function startRabbitMqServer(options: { readonly startTimeoutMs?: number } = {}): Promise<RabbitMqServerHandle> {
  const script = findRabbitMqServerScript();
  const epmd = findExecutable('epmd', ['/usr/bin/epmd', '/usr/lib/erlang/bin/epmd']);
  if (epmd === undefined) throw new Error(`epmd not found: ${installHint}`);
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const workDir = createWorkDir('agent-rpc-rabbitmq-');
  const logFile = join(workDir, 'rabbitmq-server.log');
  const nodeName = `agentrpc-${randomBytes(6).toString('hex')}@localhost`;
  const [port, distPort, epmdPort] = (await freePorts(3)) as [number, number, number];
  writeFileSync(join(workDir, 'rabbitmq.conf'), `listeners.tcp.default = 127.0.0.1:${port}\nloopback_users = none\ncluster_name = ${nodeName}\n`);
  writeFileSync(join(workDir, 'enabled_plugins'), '[].\n');
  // Debian's /etc/rabbitmq/rabbitmq-env.conf would set the node name back to rabbit@localhost.
  writeFileSync(join(workDir, 'rabbitmq-env.conf'), '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: workDir,
    RABBITMQ_CONF_ENV_FILE: join(workDir, 'rabbitmq-env.conf'),
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(workDir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(workDir, 'log'),
    RABBITMQ_LOGS: '-',
    RABBITMQ_CONFIG_FILE: join(workDir, 'rabbitmq'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(workDir, 'enabled_plugins'),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    // The script then execs the VM instead of waiting on it, so our pid is the server's own
    // and SIGKILL is a real crash.
    RUNNING_UNDER_SYSTEMD: '1',
    ERL_EPMD_PORT: String(epmdPort),
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
  // An epmd of our own, on its own port: the VM would otherwise start a daemon that outlives us.
  let epmdProcess: ManagedProcess | undefined;

  const server = new ServerProcess('rabbitmq-server', async () => {
    if (epmdProcess === undefined || epmdProcess.hasExited) {
      epmdProcess = await spawnManaged(epmd, ['-port', String(epmdPort), '-address', '127.0.0.1'], { logFile: join(workDir, 'epmd.log'), cwd: workDir, env });
    }
    const ready = { name: `rabbitmq-server ${nodeName} on port ${port}`, timeoutMs, probe: () => probeAmqp(port, nodeName) };
    return spawnReady(() => spawnManaged(script, [], { logFile, cwd: workDir, env }), ready, logFile);
  }, 30_000);
  const stopEpmd = async (): Promise<void> => void (await epmdProcess?.terminate('SIGTERM', 5_000));
  try {
    await server.launch();
  } catch (error) {
    await stopEpmd();
    throw error;
  }

  return {
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    port,
    nodeName,
    get pid() {
      return server.pid;
    },
    logFile,
    async stop() {
      await server.stop();
      await stopEpmd();
    },
    kill: () => server.kill(),
    restart: () => server.restart(),
  };
}
