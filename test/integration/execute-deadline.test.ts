import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';

// A worker (`agent-rpc serve`) whose execute deadline is 1.5 s, with a handler that ignores
// its ctx.signal and works 4 s, and one that stops when the signal aborts.
const TOKEN = 'alice-deadline-token';
const HANDLER_MS = 4_000;
const configDir = mkdtempSync(join(tmpdir(), 'deadline-node-'));
let daemon: DaemonProcess;
let base: string;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/deadline-node', import.meta.url).pathname, configDir, { recursive: true });
  const port = await freePort();
  daemon = await DaemonProcess.start(configDir, { ALICE_TOKEN: TOKEN, AGENT_DATA_DIR: join(configDir, 'data') }, port);
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => daemon?.signal('SIGKILL'));

interface Answer {
  readonly status: number;
  readonly body: { result?: unknown; error?: { code?: string; message?: string }; handler_id?: string; status?: string };
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const executeBody = (capability: string, input: unknown) => ({ user_id: 'alice', agent_id: 'slowpoke', capability, context: {}, input });
const marker = (name: string) => join(configDir, `${name}-${Date.now()}-${Math.random().toString(16).slice(2)}`);

/** The daemon's log lines (pino JSON on stdout) about results that came after their deadline. */
const lateLines = () =>
  daemon.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { lateResult?: string; capability?: string; code?: string })
    .filter((line) => line.lateResult !== undefined);

async function discardedCount(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('agent_rpc_late_results_discarded_total{') && l.includes('capability="stubborn"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('execute deadline - a handler is bounded by execute.timeoutMs', () => {
  it('execute deadline - sync: a handler ignoring its signal is answered 504 EAGENTRPC_TIMEOUT at the deadline, its late result discarded and recorded', async () => {
    const done = marker('sync');
    const before = await discardedCount();
    const answer = await call('POST', '/execute', executeBody('stubborn', { ms: HANDLER_MS, marker: done }));
    // Answered while the handler still runs: it has not finished yet.
    expect(existsSync(done)).toBe(false);
    expect(answer.status).toBe(504);
    expect(answer.body.error?.code).toBe('EAGENTRPC_TIMEOUT');
    await until(() => existsSync(done), 30_000);
    await until(async () => (await discardedCount()) === before + 1, 30_000);
    expect(lateLines().some((line) => line.capability === 'stubborn' && line.lateResult === 'discarded' && line.code === 'EAGENTRPC_TIMEOUT')).toBe(true);
  });

  it('execute deadline - async: the status reads failed EAGENTRPC_TIMEOUT, and stays so after the handler finishes', async () => {
    const done = marker('async');
    const created = await call('POST', '/execute/async', executeBody('stubborn', { ms: HANDLER_MS, marker: done }));
    expect(created.status).toBe(202);
    const status = () => call('GET', `/execute/status/${created.body.handler_id!}`);
    let last: Answer | undefined;
    await until(async () => (last = await status()).body.status !== 'running', 30_000);
    expect(existsSync(done)).toBe(false);
    expect(last!.body).toMatchObject({ status: 'failed', error: { code: 'EAGENTRPC_TIMEOUT' } });
    await until(() => existsSync(done), 30_000);
    const after = await status();
    expect(after.body).toMatchObject({ status: 'failed', error: { code: 'EAGENTRPC_TIMEOUT' } });
  });

  it('execute deadline - a handler that stops at its signal is answered 504 EAGENTRPC_TIMEOUT, not a redelivery refused as past its deadline', async () => {
    const answer = await call('POST', '/execute', executeBody('cooperative', {}));
    expect(answer.status).toBe(504);
    expect(answer.body.error?.code).toBe('EAGENTRPC_TIMEOUT');
  });

  it('execute deadline - a handler running on past its answered deadline finds its signal aborted with EAGENTRPC_TIMEOUT', async () => {
    const done = marker('late-look');
    const answer = await call('POST', '/execute', executeBody('stubborn', { ms: HANDLER_MS, marker: done, lookLate: true }));
    expect(answer.status).toBe(504);
    await until(() => existsSync(done), 30_000);
    expect(readFileSync(done, 'utf8')).toBe('aborted=true EAGENTRPC_TIMEOUT');
  });
});
