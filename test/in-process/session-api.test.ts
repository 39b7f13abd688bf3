import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { SessionApiClient } from '../support/session-api-client.js';
import { metricValue, scrape } from '../support/prometheus-text.js';
import { builtinPlugins } from '../../transports/plugins.js';

const TOKENS = { alice: 'alice-token-1', bob: 'bob-token-1', carol: 'carol-token-1', vic: 'vic-token-1' };
const configDir = mkdtempSync(join(tmpdir(), 'session-node-'));
const env = { ALICE_TOKEN: TOKENS.alice, BOB_TOKEN: TOKENS.bob, CAROL_TOKEN: TOKENS.carol, VIC_TOKEN: TOKENS.vic, AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data') };
let daemon: RunningDaemon;
let api: SessionApiClient;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
  daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
  api = new SessionApiClient(`http://127.0.0.1:${daemon.http.port}`);
});
afterAll(() => daemon?.stop());

describe('session API', () => {
  it('sessions - a message session runs the default capability and keeps its answer', async () => {
    const created = await api.create(TOKENS.alice, { message: 'echo: hello there', safeMode: true });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('accepted');
    expect(created.body.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const done = await api.waitFor(TOKENS.alice, created.body.sessionId);
    expect(done.sessionState).toEqual({ working: false, hasPendingPrompt: false, status: 'completed' });
    expect(done.messages).toEqual([
      { role: 'user', content: 'echo: hello there' },
      { role: 'assistant', content: 'hello there' },
    ]);
    expect(JSON.parse(done.responseEnvelope)).toMatchObject({ kind: 'response', from: 'agent://assistant', payload: { ok: true, data: { text: 'hello there' } } });
  });

  it('sessions - a request without a valid token is refused (401); a viewer may not create (403)', async () => {
    expect((await api.create('wrong-token', { message: 'echo: x' })).status).toBe(401);
    expect((await api.call('POST', '/api/v1/agent/sessions', undefined, { message: 'echo: x' })).status).toBe(401);
    const viewer = await api.create(TOKENS.vic, { message: 'echo: x' });
    expect(viewer).toEqual({ status: 403, body: { error: 'forbidden: role viewer lacks execute permission' } });
  });

  it('sessions - a given sessionId is idempotent for its user; a malformed one is refused', async () => {
    const sessionId = randomUUID();
    expect((await api.create(TOKENS.alice, { sessionId, message: 'echo: once' })).body).toEqual({ sessionId, status: 'accepted' });
    expect((await api.create(TOKENS.alice, { sessionId, message: 'echo: once' })).body).toEqual({ sessionId, status: 'already_exists' });
    const done = await api.waitFor(TOKENS.alice, sessionId);
    expect(done.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(1);
    // Persisted (finished) sessions count too.
    expect((await api.create(TOKENS.alice, { sessionId, message: 'echo: once' })).body.status).toBe('already_exists');
    for (const bad of ['not-a-uuid', sessionId.toUpperCase(), 42]) {
      expect(await api.create(TOKENS.alice, { sessionId: bad, message: 'echo: x' })).toEqual({ status: 400, body: { error: 'bad request: sessionId must be a valid UUID' } });
    }
  });

  it('sessions - concurrent POSTs with one id create exactly one session', async () => {
    const sessionId = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => api.create(TOKENS.alice, { sessionId, message: 'echo: race' })));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(answers.filter((a) => a.body.status === 'accepted')).toHaveLength(1);
    const done = await api.waitFor(TOKENS.alice, sessionId);
    expect(done.messages).toHaveLength(2);
  });

  it("sessions - another user's session id gets a generic 400 and is invisible to them", async () => {
    const sessionId = randomUUID();
    await api.create(TOKENS.alice, { sessionId, message: 'echo: mine' });
    const stolen = await api.create(TOKENS.bob, { sessionId, message: 'echo: theirs' });
    expect(stolen).toEqual({ status: 400, body: { error: 'bad request' } });
    expect((await api.get(TOKENS.bob, sessionId)).status).toBe(404);
    expect((await api.call('POST', `/api/v1/agent/sessions/${sessionId}/cancel`, TOKENS.bob)).status).toBe(404);
    expect((await api.get(TOKENS.bob, randomUUID())).status).toBe(404);
  });

  it('sessions - in safe mode an approval prompt waits for the answer', async () => {
    const { body } = await api.create(TOKENS.alice, { message: 'approve: command: delete the branch?', safeMode: true });
    const waiting = await api.waitFor(TOKENS.alice, body.sessionId, 'prompt');
    expect(waiting.sessionState).toMatchObject({ working: true, hasPendingPrompt: true });
    expect(waiting.pendingPrompt).toMatchObject({ type: 'command', question: 'delete the branch?' });
    const wrong = await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, TOKENS.alice, { promptId: 'nope', approved: true });
    expect(wrong.status).toBe(409);
    const answered = await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, TOKENS.alice, { promptId: waiting.pendingPrompt.promptId, approved: true });
    expect(answered.status).toBe(200);
    const done = await api.waitFor(TOKENS.alice, body.sessionId);
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'approved=true cancelled=false reason=' });
  });

  it('sessions - a rejected prompt reaches the handler as cancelled; without safe mode prompts are approved', async () => {
    const { body } = await api.create(TOKENS.alice, { message: 'approve: command: push?', safeMode: true });
    const waiting = await api.waitFor(TOKENS.alice, body.sessionId, 'prompt');
    await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/respond`, TOKENS.alice, { promptId: waiting.pendingPrompt.promptId, cancelled: true });
    expect((await api.waitFor(TOKENS.alice, body.sessionId)).messages.at(-1).content).toBe('approved=false cancelled=true reason=');
    const unsafe = await api.create(TOKENS.alice, { message: 'approve: command: push?', safeMode: false });
    expect((await api.waitFor(TOKENS.alice, unsafe.body.sessionId)).messages.at(-1).content).toBe('approved=true cancelled=false reason=safe-mode-off');
  });

  it('sessions - cancel ends a running session; a failing handler fails the session with its error', async () => {
    const { body } = await api.create(TOKENS.alice, { message: 'wait: 2000' });
    const cancelled = await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/cancel`, TOKENS.alice);
    expect(cancelled).toEqual({ status: 200, body: { sessionId: body.sessionId, status: 'cancelled' } });
    expect((await api.get(TOKENS.alice, body.sessionId)).body.sessionState).toEqual({ working: false, hasPendingPrompt: false, status: 'cancelled' });
    const failing = await api.create(TOKENS.alice, { message: 'fail' });
    const failed = await api.waitFor(TOKENS.alice, failing.body.sessionId);
    expect(failed.sessionState.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'SCRIPTED_FAILURE', message: 'the scripted failure' });
  });

  it('sessions - a cancelled session is not run again: the handler rethrowing its abort reason is not redelivered', async () => {
    const base = `http://127.0.0.1:${daemon.http.port}`;
    const assist = { agent: 'assistant', capability: 'assist' };
    const before = await scrape(base);
    const { body } = await api.create(TOKENS.carol, { message: 'slow' });
    const progress = async () => ((await api.get(TOKENS.carol, body.sessionId)).body.messages as Array<{ content: string }>).map((m) => m.content).filter((c) => c.startsWith('progress'));
    await expect.poll(progress, { timeout: 10_000 }).toEqual(['progress: started 1']);
    await api.call('POST', `/api/v1/agent/sessions/${body.sessionId}/cancel`, TOKENS.carol);
    const failedBefore = metricValue(before, 'agent_rpc_handler_duration_seconds_count', { ...assist, result: 'error' });
    await expect.poll(async () => metricValue(await scrape(base), 'agent_rpc_handler_duration_seconds_count', { ...assist, result: 'error' }), { timeout: 10_000 }).toBeGreaterThan(failedBefore);
    const after = await scrape(base);
    expect(metricValue(after, 'agent_rpc_redeliveries_total', assist)).toBe(metricValue(before, 'agent_rpc_redeliveries_total', assist));
    expect(await progress()).toEqual(['progress: started 1']);
  });

  it('sessions - retention keeps the newest max_per_user sessions of a user', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { body } = await api.create(TOKENS.carol, { message: `echo: ${i}` });
      ids.push(body.sessionId);
      await api.waitFor(TOKENS.carol, body.sessionId);
    }
    // Pruning happens at the next create: the fifth makes four finished ones exceed 3.
    const fifth = await api.create(TOKENS.carol, { message: 'echo: 4' });
    await api.waitFor(TOKENS.carol, fifth.body.sessionId);
    const statuses = await Promise.all(ids.map(async (id) => (await api.get(TOKENS.carol, id)).status));
    expect(statuses).toEqual([404, 404, 200, 200]);
  });

  it('sessions - running sessions are capped per user (max_per_user), with 429', async () => {
    const started = await Promise.all([1, 2, 3].map(() => api.create(TOKENS.bob, { message: 'wait: 1500' })));
    expect(started.map((a) => a.status)).toEqual([201, 201, 201]);
    const fourth = await api.create(TOKENS.bob, { message: 'echo: one too many' });
    expect(fourth).toEqual({ status: 429, body: { error: 'too many requests: 3 sessions of this user are still running (max 3)' } });
    for (const { body } of started) await api.waitFor(TOKENS.bob, body.sessionId);
    expect((await api.create(TOKENS.bob, { message: 'echo: room again' })).status).toBe(201);
  });

  it('sessions - the request went through the inbox: metrics and the audit log show it', async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${daemon.http.port}/metrics`)).text();
    expect(metrics).toMatch(/agent_rpc_handler_duration_seconds_count\{agent="assistant",capability="assist",result="ok"\} [1-9]/);
    expect(metrics).toMatch(/agent_rpc_auth_decisions_total\{agent="assistant",provider="internal",decision="accept"/);
  });

  it('sessions - unknown routes and methods answer 404 and 405; bodies must be JSON', async () => {
    expect((await api.call('GET', '/api/v1/nothing', TOKENS.alice)).status).toBe(404);
    expect((await api.call('DELETE', '/api/v1/agent/sessions', TOKENS.alice)).status).toBe(405);
    const response = await fetch(`${api.baseUrl}/api/v1/agent/sessions`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/json' }, body: '{not json' });
    expect(response.status).toBe(400);
    expect((await api.create(TOKENS.alice, { message: 'echo: x', extra: 1 })).status).toBe(400);
  });
});
