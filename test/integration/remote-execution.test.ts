import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpRemoteAgent } from '../../src/remote-nodes/http-remote-agent.js';
import { LocalStore, LocalTracing, RedisStoreRef, RemoteExecutionNotSupportedError, TraceContextTracing, type ExecutionContext } from '../../src/remote-nodes/remote-execution-context.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { FLEET_SECRETS } from '../support/model-agent-fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { runRedis, type RunRedis } from '../support/redis-target.js';

// The worker's Redis credentials: its connection URL carries a password (the run's Redis
// accepts any for its default user), which must never appear in what the executor sends.
const REDIS_PASSWORD = 'redis-pw-6d1e0b';

let redis: RunRedis;
let redisWithPassword: string;
let model: ScriptedModelServer;
let daemons: ModelDaemons | undefined;
let proxy: FaultProxy | undefined;
let hanging: Server | undefined;

beforeAll(async () => {
  redis = await runRedis();
  const url = new URL(redis.url);
  url.username = 'default';
  url.password = REDIS_PASSWORD;
  redisWithPassword = url.toString();
});
beforeEach(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  hanging?.closeAllConnections();
  hanging = undefined;
  await daemons?.stop();
  daemons = undefined;
  await model.close();
});

const CAPABILITY = `  - name: fix
    inputSchema: { type: object, properties: { task: { type: string } }, required: [task] }
`;

/** The worker: one model agent `fix` (think and the shared store), execute connections by reference. */
async function startWorker(extra = ''): Promise<{ port: number; dataDir: string }> {
  daemons = new ModelDaemons(model);
  const daemon = await daemons.start({
    id: 'worker',
    capabilitiesYaml: CAPABILITY,
    env: { WORKER_REDIS_URL: redisWithPassword },
    agentYaml: `handlers:
  fix:
    type: agent
    agent: { tools: { enabled: [think] } }
    messages: [{ role: user, content: "Task: \${input.task}" }]
session: { capability: fix }
execute:
  connections: { SHARED_REDIS: { urlRef: "\${env:WORKER_REDIS_URL}" } }
${extra}`,
  });
  return { port: daemon.http.port, dataDir: daemons.dataDirOf('worker') };
}

function nodeAt(url: string, timeoutMs = 30_000): RemoteNode {
  return { name: 'build-farm', description: 'worker', apiBaseUrl: url, authType: 'token', authToken: new SecretValue(API_TOKEN), skipTlsVerify: false, timeoutMs, source: 'config' };
}

function freshContext(): ExecutionContext {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    stepId: `step-${Date.now()}`,
    parentStepId: 'step-analyze',
    messages: [{ role: 'user', content: 'Earlier step: the config lives at /etc/app.yaml.' }],
    thoughts: ['the executor already looked'],
    usage: [],
  };
}

const think = (thought: string) => ({ toolCalls: [{ name: 'think', arguments: { thought } }] });

async function post(port: number, path: string, body: unknown): Promise<{ status: number; body: { error?: unknown } }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: unknown } };
}

describe('remote execution - an agent step run on a worker', () => {
  it('remote execution - sync: the worker continues the conversation and the delta is merged into the executor context', async () => {
    const worker = await startWorker();
    model.script(think('check the host first'), { text: 'Fixed: host is db.internal.' });
    const context = freshContext();
    const agent = new HttpRemoteAgent(nodeAt(`http://127.0.0.1:${worker.port}`), 'worker');
    const result = await agent.execute('alice', context, { task: 'point the config at db.internal' });
    expect(result).toMatchObject({ text: 'Fixed: host is db.internal.' });
    // The executor's messages come first in what the model read.
    const firstRequest = JSON.stringify(model.requests[0]);
    expect(firstRequest.indexOf('Earlier step')).toBeGreaterThan(-1);
    expect(firstRequest.indexOf('Earlier step')).toBeLessThan(firstRequest.indexOf('Task: point the config'));
    expect(context.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool', 'assistant']);
    expect(context.messages.at(-1)).toEqual({ role: 'assistant', content: 'Fixed: host is db.internal.' });
    expect(context.thoughts).toEqual(['the executor already looked', 'check the host first']);
    expect(context.usage).toHaveLength(1);
    expect(context.usage[0]).toMatchObject({ modelRequests: 2 });
    expect(context.usage[0]!.inputTokens).toBeGreaterThan(0);
    // It went through the agent's inbox: auth checked the request whose messageId is the step id.
    const audit = readFileSync(join(worker.dataDir, 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit).toContainEqual(expect.objectContaining({ kind: 'auth_check', decision: 'accept', messageId: context.stepId, peerId: 'agent://execute-api', capability: 'fix' }));
  });

  it('remote execution - async: handler_id, polled status, the same result and delta', async () => {
    const worker = await startWorker();
    model.script({ text: 'Done asynchronously.' });
    const context = freshContext();
    const agent = new HttpRemoteAgent(nodeAt(`http://127.0.0.1:${worker.port}`), 'worker');
    const result = await agent.execute('alice', context, { task: 'run later' }, { async: true });
    expect(result).toMatchObject({ text: 'Done asynchronously.' });
    expect(context.messages.slice(1)).toEqual([
      { role: 'user', content: 'Task: run later' },
      { role: 'assistant', content: 'Done asynchronously.' },
    ]);
    expect(context.usage[0]).toMatchObject({ modelRequests: 1 });
  });

  it('remote execution - a step id executed again is deduplicated: the stored result, no second run', async () => {
    const worker = await startWorker();
    model.script({ text: 'Once.' });
    const agent = new HttpRemoteAgent(nodeAt(`http://127.0.0.1:${worker.port}`), 'worker');
    const first = freshContext();
    const again = { ...freshContext(), stepId: first.stepId };
    expect(await agent.execute('alice', first, { task: 'x' })).toMatchObject({ text: 'Once.' });
    expect(await agent.execute('alice', again, { task: 'x' })).toMatchObject({ text: 'Once.' });
    expect(model.requests).toHaveLength(1);
    expect(again.messages).toHaveLength(1);
  });

  it('remote execution - async status is visible only to the user who created it', async () => {
    const worker = await startWorker();
    model.script({ text: 'ok' });
    const created = await post(worker.port, '/execute/async', { user_id: 'alice', agent_id: 'worker', context: {}, input: { task: 'x' } });
    expect(created.status).toBe(202);
    const id = (created.body as { handler_id: string }).handler_id;
    const read = async () => (await fetch(`http://127.0.0.1:${worker.port}/execute/status/${id}`, { headers: { authorization: `Bearer ${API_TOKEN}` } })).json();
    await expect.poll(async () => ((await read()) as { status: string }).status, { timeout: 10_000 }).toBe('completed');
    const unknown = await fetch(`http://127.0.0.1:${worker.port}/execute/status/not-a-handler`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(unknown.status).toBe(404);
    const anonymous = await fetch(`http://127.0.0.1:${worker.port}/execute/status/${id}`);
    expect(anonymous.status).toBe(401);
  });

  it('remote execution - the store is shared through Redis and no secret crosses the wire', async () => {
    const worker = await startWorker();
    proxy = await FaultProxy.start(worker.port);
    const keyPrefix = `${redis.keyPrefix}exec:`;
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await client.set(`${keyPrefix}db_host`, 'db.internal');
      model.script(
        { toolCalls: [{ name: 'store_get', arguments: { key: 'db_host' } }] },
        { toolCalls: [{ name: 'store_set', arguments: { key: 'fixed_host', value: 'db.internal:5432' } }] },
        { text: 'Stored.' },
      );
      const context: ExecutionContext = { ...freshContext(), store: new RedisStoreRef('SHARED_REDIS', keyPrefix), tracing: new TraceContextTracing() };
      await new HttpRemoteAgent(nodeAt(proxy.url), 'worker').execute('alice', context, { task: 'fix the host' });
      expect(await client.get(`${keyPrefix}fixed_host`)).toBe('db.internal:5432');
      expect(JSON.stringify(model.requests[1])).toContain('db.internal');
      // The change came through Redis, not the reply.
      expect(JSON.stringify(context)).not.toContain('db.internal:5432');
    } finally {
      await client.close();
    }
    expect(proxy.requests.length).toBeGreaterThan(0);
    for (const request of proxy.requests) {
      const bytes = `${request.method} ${request.path}\n${request.body}`;
      for (const secret of [REDIS_PASSWORD, redisWithPassword, ...Object.values(FLEET_SECRETS)]) expect(bytes).not.toContain(secret);
      expect(request.authorization).toBe(`Bearer ${API_TOKEN}`);
    }
    expect(proxy.requests[0]!.body).toContain('"connection_ref":"SHARED_REDIS"');
  });

  it('remote execution - a local-only component is refused before any request is sent', async () => {
    const worker = await startWorker();
    proxy = await FaultProxy.start(worker.port);
    const agent = new HttpRemoteAgent(nodeAt(proxy.url), 'worker');
    for (const local of [{ store: new LocalStore('/tmp/store') }, { tracing: new LocalTracing() }]) {
      const attempt = agent.execute('alice', { ...freshContext(), ...local }, { task: 'x' });
      await expect(attempt).rejects.toBeInstanceOf(RemoteExecutionNotSupportedError);
      await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_EXECUTION_NOT_SUPPORTED' });
    }
    expect(proxy.requests).toHaveLength(0);
  });

  it('remote execution - worker down gives EAGENTRPC_REMOTE_UNREACHABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const attempt = new HttpRemoteAgent(nodeAt(`http://127.0.0.1:${port}`), 'worker').execute('alice', freshContext(), { task: 'x' });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_UNREACHABLE' });
  });

  it('remote execution - a worker that does not answer in time gives EAGENTRPC_REMOTE_TIMEOUT', async () => {
    // Accepts the request and never answers, like a worker stuck on a step.
    hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const context = freshContext();
    for (const async of [false, true]) {
      const attempt = new HttpRemoteAgent(nodeAt(url, 300), 'worker').execute('alice', context, { task: 'x' }, { async });
      await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_TIMEOUT' });
    }
    expect(context.messages).toHaveLength(1);
  });

  it('remote execution - unknown agent, malformed context, inline credentials and an oversized body get a 4xx and create nothing', async () => {
    const worker = await startWorker('  maxBodyBytes: 65536\n');
    const valid = { user_id: 'alice', agent_id: 'worker', context: {}, input: { task: 'x' } };
    const cases: Array<{ body: unknown; status: number; says: RegExp }> = [
      { body: { ...valid, agent_id: 'nobody' }, status: 404, says: /no agent nobody on this node; agents here: worker/ },
      { body: { ...valid, capability: 'deploy' }, status: 404, says: /no capability deploy/ },
      { body: { ...valid, context: { messages: [{ role: 'robot', content: 'hi' }] } }, status: 400, says: /context\.messages\.0\.role/ },
      { body: { ...valid, context: { thoughts: 'one' } }, status: 400, says: /context\.thoughts/ },
      { body: { ...valid, context: { step_id: 'has spaces' } }, status: 400, says: /context\.step_id/ },
      { body: { ...valid, context: { store: { __class__: 'agent_rpc.RedisStore', config: { connection_ref: 'SHARED_REDIS' }, extra: 1 } } }, status: 400, says: /context\.store/ },
      { body: { ...valid, context: { store: { __class__: 'my.FileStore', config: {} } } }, status: 400, says: /context\.store\.__class__: unknown class my\.FileStore/ },
      { body: { ...valid, context: { store: { __class__: 'agent_rpc.RedisStore', config: { connection_ref: 'NOPE' } } } }, status: 400, says: /unknown connection NOPE; known: SHARED_REDIS/ },
      { body: { ...valid, context: { store: { __class__: 'agent_rpc.RedisStore', config: { url: redisWithPassword } } } }, status: 400, says: /context\.store\.config\.url: looks like an inline credential/ },
      { body: { ...valid, context: { tracing: { __class__: 'agent_rpc.TraceContext', config: { api_key: 'k' } } } }, status: 400, says: /context\.tracing\.config\.api_key: looks like an inline credential/ },
      { body: { ...valid, input: { task: 'x'.repeat(100_000) } }, status: 413, says: /at most 65536 bytes/ },
    ];
    for (const { body, status, says } of cases) {
      for (const path of ['/execute', '/execute/async']) {
        const answer = await post(worker.port, path, body);
        expect({ path, status: answer.status }).toEqual({ path, status });
        expect(answer.body.error).toMatch(says);
      }
    }
    expect(model.requests).toHaveLength(0);
    const dlq = join(worker.dataDir, 'dlq.jsonl');
    expect(existsSync(dlq) ? readFileSync(dlq, 'utf8').trim() : '').toBe('');
  });

  it('remote execution - a refused request comes back with its code and a typed error on the executor', async () => {
    const worker = await startWorker();
    const context = freshContext();
    const attempt = new HttpRemoteAgent(nodeAt(`http://127.0.0.1:${worker.port}`), 'worker').execute('alice', context, { wrong: true });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_AGENT_FAILED', details: { status: 400, remoteCode: 'EAGENTRPC_SCHEMA_VIOLATION' } });
    expect(model.requests).toHaveLength(0);
  });
});
