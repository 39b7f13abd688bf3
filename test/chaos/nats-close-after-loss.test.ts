import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { until } from '../support/fleet.js';

const SCRIPT = fileURLToPath(new URL('../fixtures/processes/close-nats-transport.ts', import.meta.url));

describe('nats - close() with the server gone', () => {
  let server: NatsServerHandle | undefined;
  afterAll(async () => server?.stop(), 60_000);

  it('nats - close() ends the connection: the process exits, no reconnecting after close', async () => {
    server = await startNatsServer();
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, server.url], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => out.includes('ready'), 30_000);
    await server.kill();
    await until(() => out.includes('lost'), 20_000);
    child.stdin.write('close\n');
    // A connection still reconnecting keeps the process alive; bounded well past the reconnect backoff (2 s).
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), 10_000)))]);
    clearTimeout(timer);
    if (code === 'running') child.kill('SIGKILL');
    expect(code, out).toBe(0);
    expect(out).toContain('closed');
  }, 60_000);
});
