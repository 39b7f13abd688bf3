import { createClient } from 'redis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpRemoteAgent } from '../../src/remote-nodes/http-remote-agent.js';
import { RedisStoreRef, TraceContextTracing, type ExecutionContext } from '../../src/remote-nodes/remote-execution-context.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { FLEET_SECRETS } from '../support/model-agent-fleet.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { runRedis, type RunRedis } from '../support/redis-target.js';
import { freshContext, nodeAt, postJson, REDIS_PASSWORD, withPassword, workerSpec } from '../support/remote-execution-worker.js';
import { auditRecordsOnceWritten } from '../support/audit-file.js';

let redis: RunRedis;
let redisWithPassword: string;
let model: ScriptedModelServer;
let daemons: ModelDaemons | undefined;
let proxy: FaultProxy | undefined;
let workerProcess: DaemonProcess | undefined;

beforeAll(async () => {
  redis = await runRedis();
  redisWithPassword = withPassword(redis.url);
});
beforeEach(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  if (workerProcess) {
    workerProcess.signal('SIGTERM');
    await workerProcess.exited;
    workerProcess = undefined;
  }
  await proxy?.close();
  proxy = undefined;
  await daemons?.stop();
  daemons = undefined;
  await model.close();
});

/** The worker as a daemon in this process. */
async function startWorker(): Promise<{ port: number; dataDir: string }> {
  daemons = new ModelDaemons(model);
  const daemon = await daemons.start(workerSpec(redisWithPassword));
  return { port: daemon.http.port, dataDir: daemons.dataDirOf('worker') };
}

const think = (thought: string) => ({ toolCalls: [{ name: 'think', arguments: { thought } }] });

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
    const audit = await auditRecordsOnceWritten([worker.dataDir], (record) => record.kind === 'auth_check' && record.messageId === context.stepId);
    expect(audit).toContainEqual(expect.objectContaining({ kind: 'auth_check', decision: 'accept', messageId: context.stepId, peerId: 'agent://execute-api', capability: 'fix' }));
  });

  it('remote execution - a worker in its own agent-rpc serve process: sync then async, the store through Redis, no secret on the wire', async () => {
    daemons = new ModelDaemons(model);
    const port = await freePort();
    const { dir, env } = daemons.writeConfig(workerSpec(redisWithPassword), port);
    workerProcess = await DaemonProcess.start(dir, env, port);
    proxy = await FaultProxy.start(port);
    const keyPrefix = `${redis.keyPrefix}proc:`;
    model.script(
      { toolCalls: [{ name: 'store_set', arguments: { key: 'step1', value: 'done' } }] },
      { text: 'First.' },
      { toolCalls: [{ name: 'store_get', arguments: { key: 'step1' } }] },
      { text: 'Second.' },
    );
    const context: ExecutionContext = { ...freshContext(), store: new RedisStoreRef('SHARED_REDIS', keyPrefix) };
    const agent = new HttpRemoteAgent(nodeAt(proxy.url), 'worker');
    expect(await agent.execute('alice', context, { task: 'one' })).toMatchObject({ text: 'First.' });
    expect(await agent.execute('alice', { ...context, stepId: 'step-two' }, { task: 'two' }, { async: true })).toMatchObject({ text: 'Second.' });
    expect(JSON.stringify(model.requests[3])).toContain('done');
    const client = createClient({ url: redis.url });
    await client.connect();
    expect(await client.get(`${keyPrefix}step1`)).toBe('done');
    await client.close();
    // Both steps appended to the same conversation (the second context shares its lists).
    expect(context.messages.filter((m) => m.role === 'assistant' && m.content !== '').map((m) => m.content)).toEqual(['First.', 'Second.']);
    expect(proxy.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, ':id')}`)).toContain('GET /execute/status/:id');
    for (const request of proxy.requests) {
      for (const secret of [REDIS_PASSWORD, ...Object.values(FLEET_SECRETS)]) expect(`${request.path}\n${request.body}`).not.toContain(secret);
    }
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
    const created = await postJson(worker.port, '/execute/async', { user_id: 'alice', agent_id: 'worker', context: {}, input: { task: 'x' } });
    expect(created.status).toBe(202);
    const id = created.body.handler_id!;
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

});
