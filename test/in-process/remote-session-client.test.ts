import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectJittered } from '../support/assertions.js';
import { buildAgentTools } from '../../src/model-agents/index.js';
import { FileAuditLog } from '../../src/audit/file-audit-log.js';
import { readAuditLog } from '../../src/audit/read-audit-log.js';
import { silentLogger } from '../../src/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { CREATE_ATTEMPTS, runRemoteSession } from '../../src/remote-nodes/remote-session-client.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { SessionApiClient } from '../support/session-api-client.js';
import { builtinPlugins } from '../../transports/plugins.js';

// The client against a real node (the scripted session-node daemon), through a proxy that
// loses responses and fails requests on demand.
const TOKEN = 'alice-client-token';
const configDir = mkdtempSync(join(tmpdir(), 'session-client-'));
let daemon: RunningDaemon;
let proxy: FaultProxy;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
  const env = { ALICE_TOKEN: TOKEN, BOB_TOKEN: 'b', CAROL_TOKEN: 'c', VIC_TOKEN: 'v', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data') };
  daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
});
afterAll(() => daemon?.stop());
afterEach(() => proxy?.close());

async function nodeThroughProxy(overrides: Partial<RemoteNode> = {}): Promise<RemoteNode> {
  proxy = await FaultProxy.start(daemon.http.port);
  return { name: 'assistant-node', description: '', apiBaseUrl: proxy.url, authType: 'token', authToken: new SecretValue(TOKEN), skipTlsVerify: false, timeoutMs: 30_000, source: 'config', ...overrides };
}

/** Polls without waiting (tests assert what was asked for, never elapsed time). */
const quickSleep = (requested: number[]) => (ms: number) => {
  requested.push(ms);
  return new Promise<void>((resolve) => setTimeout(resolve, 20));
};

const sessionIdsOf = (method: string) => proxy.requests.filter((r) => r.method === method && r.path === '/api/v1/agent/sessions').map((r) => JSON.parse(r.body).sessionId);

describe('remote session client against a real node', () => {
  it('client - a POST whose response is lost is retried with the same id and makes one session', async () => {
    const node = await nodeThroughProxy();
    proxy.inject('POST', /^\/api\/v1\/agent\/sessions$/, 'drop-response');
    const result = await runRemoteSession(node, { message: 'echo: once only' }, { sleep: quickSleep([]) });
    expect(result.output).toBe('once only');
    const posted = sessionIdsOf('POST');
    expect(posted).toHaveLength(2);
    expect(new Set(posted)).toEqual(new Set([result.sessionId]));
    const view = await new SessionApiClient(`http://127.0.0.1:${daemon.http.port}`).get(TOKEN, result.sessionId);
    expect(view.body.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(1);
  });

  it('client - polls back off from 500 ms by ×1.5 up to 5 s, less jitter', async () => {
    const requested: number[] = [];
    await runRemoteSession(await nodeThroughProxy(), { message: 'wait: 600' }, { sleep: quickSleep(requested) });
    expectJittered(requested.slice(0, 8), [500, 750, 1125, 1687.5, 2531.25, 3796.875, 5000, 5000]);
  });

  it('client - two failed polls in a row recover; the count resets after a success', async () => {
    const node = await nodeThroughProxy();
    proxy.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 }, 2);
    expect((await runRemoteSession(node, { message: 'echo: survived' }, { sleep: quickSleep([]) })).output).toBe('survived');
    // Three failures, a success, three failures: never four in a row.
    proxy.inject('GET', /^\/api\/v1\/agent\/sessions\//, 'reset', 3);
    proxy.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 }, 3, 1);
    expect((await runRemoteSession(node, { message: 'wait: 1500' }, { sleep: quickSleep([]) })).output).toBe('waited 1500');
    const polls = proxy.requests.filter((r) => r.method === 'GET').length;
    expect(polls).toBeGreaterThan(2 + 7);
  });

  it('client - four failed polls in a row fail with the session id', async () => {
    const node = await nodeThroughProxy();
    proxy.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 }, 4);
    const error = await runRemoteSession(node, { message: 'wait: 2000' }, { sleep: quickSleep([]) }).catch((e: unknown) => e);
    const sessionId = sessionIdsOf('POST')[0];
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_POLL_FAILED', details: { sessionId } });
    expect((error as Error).message).toMatch(new RegExp(`^failed to poll session ${sessionId}: HTTP 503`));
  });

  it('client - a pending prompt is rejected at once; the caller keeps its type and first 200 characters', async () => {
    const question = `Run this? ${'x'.repeat(400)}`;
    const result = await runRemoteSession(await nodeThroughProxy(), { message: `approve: command: ${question}` }, { sleep: quickSleep([]) });
    expect(result.rejectedPrompts).toEqual([{ type: 'command', question: question.slice(0, 200) }]);
    expect(result.lastAssistantMessage).toBe('approved=false cancelled=true reason=');
    expect(result.output).toContain(`- command: ${question.slice(0, 200)}]`);
    expect(result.output).not.toContain(question.slice(0, 201));
    const respond = proxy.requests.find((r) => r.path.endsWith('/respond'));
    expect(JSON.parse(respond!.body)).toMatchObject({ cancelled: true });
  });

  it('client - a failed prompt rejection is logged and polling goes on', async () => {
    const node = await nodeThroughProxy();
    proxy.inject('POST', /\/respond$/, { status: 503 });
    const result = await runRemoteSession(node, { message: 'approve: command: first ask fails to reject' }, { sleep: quickSleep([]) });
    expect(result.lastAssistantMessage).toBe('approved=false cancelled=true reason=');
    expect(proxy.requests.filter((r) => r.path.endsWith('/respond'))).toHaveLength(2);
  });

  it("client - the node's timeout cancels the remote session and names it", async () => {
    const node = await nodeThroughProxy({ timeoutMs: 1_000 });
    const error = await runRemoteSession(node, { message: 'wait: 3000' }).catch((e: unknown) => e);
    const sessionId = sessionIdsOf('POST')[0];
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_TIMEOUT', details: { sessionId } });
    expect((error as Error).message).toContain(sessionId);
    expect(proxy.requests.some((r) => r.method === 'POST' && r.path === `/api/v1/agent/sessions/${sessionId}/cancel`)).toBe(true);
    const view = await new SessionApiClient(`http://127.0.0.1:${daemon.http.port}`).get(TOKEN, sessionId);
    expect(view.body.sessionState.status).toBe('cancelled');
  });

  it('client - a local abort cancels the remote session', async () => {
    const node = await nodeThroughProxy();
    const controller = new AbortController();
    const running = runRemoteSession(node, { message: 'wait: 3000' }, { signal: controller.signal, sleep: quickSleep([]) }).catch((e: unknown) => e);
    while (!proxy.requests.some((r) => r.method === 'GET')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const error = await running;
    const sessionId = sessionIdsOf('POST')[0];
    expect(error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { sessionId, cancelled: true } });
    expect(proxy.requests.some((r) => r.path === `/api/v1/agent/sessions/${sessionId}/cancel`)).toBe(true);
  });

  it('client - error statuses are remote API errors; a failing agent is its own error with the session id', async () => {
    const node = await nodeThroughProxy();
    // A 5xx on create is retried (same session id); one that lasts is the error.
    proxy.inject('POST', /^\/api\/v1\/agent\/sessions$/, { status: 503 }, CREATE_ATTEMPTS);
    const unavailable = await runRemoteSession(node, { message: 'echo: x' }, { sleep: quickSleep([]) }).catch((e: unknown) => e);
    expect(unavailable).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 503 }, message: 'remote API error (HTTP 503): injected failure' });
    const failed = await runRemoteSession(node, { message: 'fail' }, { sleep: quickSleep([]) }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'EAGENTRPC_REMOTE_AGENT_FAILED', details: { remoteCode: 'SCRIPTED_FAILURE' } });
    expect((failed as Error).message).toMatch(/^the scripted failure \(session [0-9a-f-]{36} on assistant-node\)$/);
  });

  it('client - long output is cut exactly past 10,000 characters; empty output says so', async () => {
    const node = await nodeThroughProxy();
    expect((await runRemoteSession(node, { message: 'long: 10000' }, { sleep: quickSleep([]) })).output).toHaveLength(10_000);
    const long = (await runRemoteSession(node, { message: 'long: 10001' }, { sleep: quickSleep([]) })).output;
    const full = Array.from({ length: 10_001 }, (_, i) => String(i % 10)).join('');
    expect(long).toBe(`${full.slice(0, 500)}\n... [truncated 1 chars] ...\n${full.slice(-9_500)}`);
    expect((await runRemoteSession(node, { message: 'empty' }, { sleep: quickSleep([]) })).output).toBe('Remote agent completed but produced no output.');
  });

  it('client - bearer and basic credentials are sent as such', async () => {
    const node = await nodeThroughProxy();
    await runRemoteSession(node, { message: 'echo: x' }, { sleep: quickSleep([]) });
    expect(proxy.requests[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    const basic = { ...node, authType: 'basic' as const, authToken: new SecretValue('alice:s3cret') };
    const refused = await runRemoteSession(basic, { message: 'echo: x' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 401 } });
    expect(proxy.requests.at(-1)!.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  });

  it('client - the remote_agent tool runs a real remote session and audits its id', async () => {
    const node = await nodeThroughProxy();
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: { list: async () => [node], get: async () => node }, delegated: false });
    const file = join(mkdtempSync(join(tmpdir(), 'tool-audit-')), 'audit.jsonl');
    const audit = await FileAuditLog.open({ path: file });
    const result = await tool!.execute({ node: 'assistant-node', message: 'echo: from a tool' }, { principal: { user: 'alice', role: 'operator' }, agentId: 'caller', audit, logger: silentLogger });
    expect(result).toEqual({ output: 'from a tool' });
    await audit.close();
    const [record] = await readAuditLog(file, { kind: 'remote_agent_exec' });
    expect(record).toMatchObject({ node: 'assistant-node', message_length: 17, remote_session_id: sessionIdsOf('POST')[0] });
  });
});
