import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectJittered } from '../support/assertions.js';
import type { Logger } from '../../src/logger.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { CREATE_ATTEMPTS, runRemoteSession, type RemoteSessionOptions } from '../../src/remote-nodes/remote-session-client.js';
import { echoed, ScriptedSessionApi, type PollView, type SessionScript } from '../support/scripted-session-api.js';

// The client's failure paths against a scripted loopback node (test/support/scripted-session-api.ts).
const TOKEN = 'tok-SECRET-4711';
const SESSIONS = '/api/v1/agent/sessions';
let api: ScriptedSessionApi | undefined;
afterEach(() => api?.close());

async function start(script: SessionScript = {}): Promise<ScriptedSessionApi> {
  api = await ScriptedSessionApi.start(script);
  return api;
}

function nodeOf(server: ScriptedSessionApi | string, overrides: Partial<RemoteNode> = {}): RemoteNode {
  const apiBaseUrl = typeof server === 'string' ? server : server.url;
  return { name: 'node-b', description: '', apiBaseUrl, authType: 'token', authToken: new SecretValue(TOKEN), skipTlsVerify: false, timeoutMs: 60_000, source: 'config', ...overrides };
}

/** Sleeps recorded (and marked in the server's event list), never waited; a fake clock advances by them. */
function fakeTime(server?: ScriptedSessionApi) {
  const sleeps: number[] = [];
  let now = 0;
  const options = {
    clock: { now: () => now },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      server?.events.push(`sleep ${ms}`);
      now += ms;
    },
  } satisfies RemoteSessionOptions;
  return { sleeps, options };
}

function capturingLogger(lines: string[], bindings: Record<string, unknown> = {}): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push(`${level} ${message} ${JSON.stringify({ ...bindings, ...fields })}`);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), isLevelEnabled: () => true, child: (more) => capturingLogger(lines, { ...bindings, ...more }) };
}

const working: PollView = { working: true };
const answered = (content: string): PollView => ({ working: false, status: 'completed', messages: [{ role: 'assistant', content }] });
const failure = (promise: Promise<unknown>): Promise<any> => promise.then(() => expect.fail('expected the session to fail'), (error: unknown) => error);

describe('remote session client against a scripted node', () => {
  it('remote session - a POST whose response is dropped is retried with the same id and makes one session', async () => {
    const server = await start();
    server.inject('POST', /^\/api\/v1\/agent\/sessions$/, 'drop-response');
    const result = await runRemoteSession(nodeOf(server), { message: 'hello' }, fakeTime().options);
    expect(result).toMatchObject({ status: 'completed', output: 'echo: hello' });
    const posts = server.requestsTo('POST', SESSIONS);
    expect(posts.map((p) => p.body?.sessionId)).toEqual([result.sessionId, result.sessionId]);
    expect(posts[1]!.reply).toEqual({ sessionId: result.sessionId, status: 'already_exists' });
    expect([...server.sessions.keys()]).toEqual([result.sessionId]);
  });

  it('remote session - already_exists counts as created', async () => {
    const server = await start({ alreadyExists: true });
    expect((await runRemoteSession(nodeOf(server), { message: 'again' }, fakeTime().options)).output).toBe('echo: again');
    expect(server.requestsTo('POST', SESSIONS)).toHaveLength(1);
  });

  it('remote session - resets and 5xx on create are retried; a lasting 5xx is a remote API error', async () => {
    const server = await start();
    server.inject('POST', /^\/api\/v1\/agent\/sessions$/, 'reset');
    server.inject('POST', /^\/api\/v1\/agent\/sessions$/, { status: 502 });
    const time = fakeTime();
    const result = await runRemoteSession(nodeOf(server), { message: 'retry' }, time.options);
    expect(new Set(server.requestsTo('POST', SESSIONS).map((p) => p.body?.sessionId))).toEqual(new Set([result.sessionId]));
    expectJittered(time.sleeps.slice(0, 2), [100, 200]);
    server.inject('POST', /^\/api\/v1\/agent\/sessions$/, { status: 503, error: 'service unavailable: draining' }, CREATE_ATTEMPTS);
    const error = await failure(runRemoteSession(nodeOf(server), { message: 'x' }, fakeTime().options));
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 503 }, message: 'remote API error (HTTP 503): service unavailable: draining' });
  });

  it('remote session - polls back off from 500 ms by ×1.5 up to 5 s, less jitter', async () => {
    const server = await start({ poll: (session, n) => (n < 10 ? working : echoed(session)) });
    const time = fakeTime();
    await runRemoteSession(nodeOf(server), { message: 'slow' }, time.options);
    expectJittered(time.sleeps, [500, 750, 1125, 1687.5, 2531.25, 3796.875, 5000, 5000, 5000, 5000, 5000]);
  });

  it('remote session - two failed polls in a row recover', async () => {
    const server = await start();
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, 'reset');
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 });
    expect((await runRemoteSession(nodeOf(server), { message: 'flaky' }, fakeTime().options)).output).toBe('echo: flaky');
    expect(server.requestsTo('GET', /^\/api\/v1\/agent\/sessions\//)).toHaveLength(3);
  });

  it('remote session - the fourth failed poll in a row fails with the session id', async () => {
    const server = await start({ poll: () => working });
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 }, 4);
    const error = await failure(runRemoteSession(nodeOf(server), { message: 'x' }, fakeTime().options));
    const [sessionId] = server.sessions.keys();
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_POLL_FAILED', details: { sessionId } });
    expect(error.message.startsWith(`failed to poll session ${sessionId}: `)).toBe(true);
    expect(server.requestsTo('GET', /^\/api\/v1\/agent\/sessions\//)).toHaveLength(4);
  });

  it('remote session - the failure count resets after a successful poll', async () => {
    const server = await start({ poll: (session, n) => (n < 1 ? working : echoed(session)) });
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, 'reset', 3);
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 503 }, 3, 1);
    expect((await runRemoteSession(nodeOf(server), { message: 'bumpy' }, fakeTime().options)).output).toBe('echo: bumpy');
    expect(server.requestsTo('GET', /^\/api\/v1\/agent\/sessions\//).map((r) => r.status ?? 'reset')).toEqual(['reset', 'reset', 'reset', 200, 503, 503, 503, 200]);
  });

  it('remote session - a pending prompt is rejected, summarised to 200 characters, and polled again at once', async () => {
    const question = `Delete the tree? ${'q'.repeat(400)} END-OF-QUESTION`;
    const prompt = { promptId: 'p-1', type: 'command', question };
    const server = await start({ poll: (session) => (session.responses.length === 0 ? { working: true, pendingPrompt: prompt } : answered('done')) });
    const lines: string[] = [];
    const result = await runRemoteSession(nodeOf(server), { message: 'x' }, { ...fakeTime(server).options, logger: capturingLogger(lines) });
    const respondPath = `${SESSIONS}/${result.sessionId}/respond`;
    expect(server.requestsTo('POST', respondPath).map((r) => r.body)).toEqual([{ promptId: 'p-1', cancelled: true }]);
    expect(server.events.slice(server.events.indexOf(`POST ${respondPath}`))).toEqual([`POST ${respondPath}`, `GET ${SESSIONS}/${result.sessionId}`]);
    expect(result.rejectedPrompts).toEqual([{ type: 'command', question: question.slice(0, 200) }]);
    expect(result.output).toBe(`done\n\n[Note: 1 prompt(s) from the remote agent were auto-rejected:\n- command: ${question.slice(0, 200)}]`);
    expect(JSON.stringify(result)).not.toContain('END-OF-QUESTION');
    expect(lines.join('\n')).not.toContain('Delete the tree');
    expect(lines.some((l) => l.includes(result.sessionId) && l.includes('node-b'))).toBe(true);
  });

  it('remote session - a failed prompt rejection is logged and polling goes on', async () => {
    const prompt = { promptId: 'p-2', type: 'approval', question: 'Proceed?' };
    const server = await start({ poll: (session) => (session.responses.length === 0 ? { working: true, pendingPrompt: prompt } : answered('went on')) });
    server.inject('POST', /\/respond$/, { status: 500 });
    const lines: string[] = [];
    const result = await runRemoteSession(nodeOf(server), { message: 'x' }, { ...fakeTime().options, logger: capturingLogger(lines) });
    expect(result.lastAssistantMessage).toBe('went on');
    expect(server.requestsTo('POST', /\/respond$/)).toHaveLength(2);
    expect(result.rejectedPrompts).toEqual([{ type: 'approval', question: 'Proceed?' }]);
    expect(lines.some((l) => l.startsWith('warn could not reject'))).toBe(true);
  });

  it("remote session - the node's timeout cancels the remote session and the error names it", async () => {
    const server = await start({ poll: () => working });
    const error = await failure(runRemoteSession(nodeOf(server, { timeoutMs: 4_000 }), { message: 'forever' }, fakeTime().options));
    const [session] = server.sessions.values();
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_TIMEOUT', details: { sessionId: session!.sessionId } });
    expect(error.message).toContain(session!.sessionId);
    expect(server.requestsTo('POST', `${SESSIONS}/${session!.sessionId}/cancel`)).toHaveLength(1);
    expect(session!.cancelled).toBe(true);
  });

  it('remote session - a request left unanswered is cut by the node timeout, which cancels remotely', async () => {
    const server = await start({ poll: () => working });
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, 'hang');
    const error = await failure(runRemoteSession(nodeOf(server, { timeoutMs: 300 }), { message: 'x' }, { sleep: async () => {} }));
    const [sessionId] = server.sessions.keys();
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_TIMEOUT', details: { sessionId } });
    expect(server.requestsTo('POST', `${SESSIONS}/${sessionId}/cancel`)).toHaveLength(1);
  });

  it('remote session - a local abort cancels the remote session', async () => {
    const server = await start({ poll: () => working });
    const controller = new AbortController();
    let sleeps = 0;
    const sleep = async (): Promise<void> => {
      if (++sleeps === 3) controller.abort();
    };
    const error = await failure(runRemoteSession(nodeOf(server), { message: 'x' }, { signal: controller.signal, sleep }));
    const [sessionId] = server.sessions.keys();
    expect(error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { sessionId, cancelled: true } });
    expect(error.message).toContain(sessionId);
    expect(server.requestsTo('POST', `${SESSIONS}/${sessionId}/cancel`)).toHaveLength(1);
    const before = server.requests.length;
    expect(await failure(runRemoteSession(nodeOf(server), { message: 'x' }, { signal: controller.signal }))).toMatchObject({ code: 'EAGENTRPC_ABANDONED' });
    expect(server.requests).toHaveLength(before);
  });

  it("remote session - 401 and 403 are remote API errors with the server's text", async () => {
    const server = await start({ authorization: 'Bearer the-right-token' });
    const refused = await failure(runRemoteSession(nodeOf(server), { message: 'x' }, fakeTime().options));
    expect(refused).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 401 }, message: 'remote API error (HTTP 401): unauthorized: invalid token' });
    expect(server.requestsTo('POST', SESSIONS)).toHaveLength(1);
    server.inject('GET', /^\/api\/v1\/agent\/sessions\//, { status: 403, error: 'forbidden: viewer role' });
    const node = nodeOf(server, { authToken: new SecretValue('the-right-token') });
    const forbidden = await failure(runRemoteSession(node, { message: 'x' }, fakeTime().options));
    expect(forbidden).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 403 }, message: 'remote API error (HTTP 403): forbidden: viewer role' });
  });

  it('remote session - an unreachable node is named without credentials', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const lines: string[] = [];
    const node = nodeOf(`http://admin:pa55word@127.0.0.1:${port}/agents?key=k3y`, { authType: 'basic', authToken: new SecretValue('admin:tok-SECRET-4711') });
    const error = await failure(runRemoteSession(node, { message: 'x' }, { ...fakeTime().options, logger: capturingLogger(lines) }));
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_UNREACHABLE', details: { node: 'node-b' } });
    expect(error.message).toContain(`node-b at http://127.0.0.1:${port}/agents`);
    for (const text of [error.message, JSON.stringify(error.details), lines.join('\n')]) {
      for (const secret of ['tok-SECRET', 'pa55word', 'k3y', Buffer.from('admin:tok-SECRET-4711').toString('base64')]) expect(text).not.toContain(secret);
    }
  });

  it('remote session - bearer, basic and no credentials are sent as specified', async () => {
    const server = await start();
    await runRemoteSession(nodeOf(server), { message: 'a' }, fakeTime().options);
    await runRemoteSession(nodeOf(server, { authType: 'basic', authToken: new SecretValue('alice:s3cret') }), { message: 'b' }, fakeTime().options);
    await runRemoteSession(nodeOf(server, { authType: 'none', authToken: undefined }), { message: 'c' }, fakeTime().options);
    const headers = [...new Set(server.requests.map((r) => r.authorization))];
    expect(headers).toEqual([`Bearer ${TOKEN}`, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`, undefined]);
  });

  it('remote session - a failed or remotely cancelled session is an agent failure with the session id', async () => {
    const server = await start({
      poll: (session) =>
        session.message === 'fail' ? { working: false, status: 'failed', error: { code: 'TOOL_CRASHED', message: 'the build tool crashed' } } : { working: false, status: 'cancelled' },
    });
    const failed = await failure(runRemoteSession(nodeOf(server), { message: 'fail' }, fakeTime().options));
    expect(failed).toMatchObject({ code: 'EAGENTRPC_REMOTE_AGENT_FAILED', details: { sessionId: expect.any(String), remoteCode: 'TOOL_CRASHED' } });
    expect(failed.message).toBe(`the build tool crashed (session ${failed.details.sessionId} on node-b)`);
    const cancelled = await failure(runRemoteSession(nodeOf(server), { message: 'stop' }, fakeTime().options));
    expect(cancelled).toMatchObject({ code: 'EAGENTRPC_REMOTE_AGENT_FAILED', details: { remoteStatus: 'cancelled' } });
    expect(cancelled.message).toMatch(/cancelled \(session [0-9a-f-]{36} on node-b\)$/);
  });

  it('remote session - output is cut exactly past 10,000 characters; empty output says so', async () => {
    const digits = (n: number) => Array.from({ length: n }, (_, i) => String(i % 10)).join('');
    const server = await start({ poll: (session) => answered(session.message === 'empty' ? '' : digits(Number(session.message))) });
    expect((await runRemoteSession(nodeOf(server), { message: '10000' }, fakeTime().options)).output).toBe(digits(10_000));
    const long = digits(10_001);
    expect((await runRemoteSession(nodeOf(server), { message: '10001' }, fakeTime().options)).output).toBe(`${long.slice(0, 500)}\n... [truncated 1 chars] ...\n${long.slice(-9_500)}`);
    expect((await runRemoteSession(nodeOf(server), { message: 'empty' }, fakeTime().options)).output).toBe('Remote agent completed but produced no output.');
  });

  it('remote session - the envelope goes out with safe mode on and the response envelope comes back', async () => {
    const server = await start({ poll: () => ({ ...answered('ok'), responseEnvelope: 'RESPONSE-ENVELOPE' }) });
    const result = await runRemoteSession(nodeOf(server), { message: 'call', envelope: 'REQUEST-ENVELOPE' }, fakeTime().options);
    expect(server.sessions.get(result.sessionId)).toMatchObject({ envelope: 'REQUEST-ENVELOPE', safeMode: true });
    expect(result.responseEnvelope).toBe('RESPONSE-ENVELOPE');
  });
});
