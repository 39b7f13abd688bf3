import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { until } from '../support/fleet.js';

const SCRIPT = fileURLToPath(new URL('../fixtures/processes/close-nats-transport.ts', import.meta.url));

describe('nats - close() with the server gone', () => {
  let server: NatsServerHandle | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  }, 60_000);

  /** A transport subscribed on a server that is then killed: close() must end its connection and so let the process exit. */
  async function closeAfterLoss(mode: 'core' | 'durable'): Promise<void> {
    server = await startNatsServer({ jetstream: mode === 'durable' });
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, server.url, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => out.includes('ready'), 30_000);
    await server.kill();
    // Lost, and the client reconnecting (so the check after close() would see it go on).
    await until(() => out.includes('lost') && out.includes('status reconnecting'), 20_000);
    child.stdin.write('close\n');
    // A connection still reconnecting keeps the process alive; bounded well past the reconnect backoff (2 s).
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), 10_000)))]);
    clearTimeout(timer);
    if (code === 'running') child.kill('SIGKILL');
    expect(code, out).toBe(0);
    expect(out).toContain('closed');
    expect(out.slice(out.indexOf('closed'))).not.toContain('status reconnecting');
  }

  it('nats - close() ends the connection: the process exits, no reconnecting after close', async () => {
    await closeAfterLoss('core');
  }, 60_000);

  it('nats - close() in JetStream durable mode ends the connection: the process exits, no reconnecting after close', async () => {
    await closeAfterLoss('durable');
  }, 60_000);
});
