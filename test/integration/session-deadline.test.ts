import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';

// A node (`agent-rpc serve`) whose session deadline is 1.5 s (session.timeoutMs), with a
// session capability that ignores its ctx.signal and works 4 s.
const TOKEN = 'alice-session-deadline-token';
const HANDLER_MS = 4_000;
const configDir = mkdtempSync(join(tmpdir(), 'session-deadline-'));
let daemon: DaemonProcess;
let base: string;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/deadline-node', import.meta.url).pathname, configDir, { recursive: true });
  const port = await freePort();
  daemon = await DaemonProcess.start(configDir, { ALICE_TOKEN: TOKEN, AGENT_DATA_DIR: join(configDir, 'data') }, port);
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => daemon?.signal('SIGKILL'));

interface SessionView {
  readonly sessionId?: string;
  readonly sessionState?: { status?: string };
  readonly error?: { code?: string };
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: SessionView }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as SessionView };
}

async function discardedCount(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('agent_rpc_late_results_discarded_total{') && l.includes('capability="stubborn"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('session deadline - a session is bounded by session.timeoutMs', () => {
  it('session deadline - a handler ignoring its signal ends the session failed EAGENTRPC_TIMEOUT at the deadline, its late result discarded, and it stays failed', async () => {
    const done = join(configDir, `session-${Date.now()}-${Math.random().toString(16).slice(2)}`);
    const before = await discardedCount();
    const created = await call('POST', '/api/v1/agent/sessions', { message: JSON.stringify({ ms: HANDLER_MS, marker: done }) });
    expect(created.status).toBe(201);
    const read = () => call('GET', `/api/v1/agent/sessions/${created.body.sessionId!}`);
    let last: SessionView | undefined;
    await until(async () => (last = (await read()).body).sessionState?.status !== 'running', 30_000);
    // Ended while the handler still runs: it has not finished yet.
    expect(existsSync(done)).toBe(false);
    expect(last).toMatchObject({ sessionState: { status: 'failed' }, error: { code: 'EAGENTRPC_TIMEOUT' } });
    await until(() => existsSync(done), 30_000);
    await until(async () => (await discardedCount()) === before + 1, 30_000);
    expect((await read()).body).toMatchObject({ sessionState: { status: 'failed' }, error: { code: 'EAGENTRPC_TIMEOUT' } });
  });
});
