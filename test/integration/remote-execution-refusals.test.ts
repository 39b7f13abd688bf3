import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpRemoteAgent } from '../../src/remote-nodes/http-remote-agent.js';
import { LocalStore, LocalTracing, RemoteExecutionNotSupportedError } from '../../src/remote-nodes/remote-execution-context.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { ModelDaemons } from '../support/model-daemons.js';
import { freshContext, nodeAt, postJson, withPassword, workerSpec } from '../support/remote-execution-worker.js';

// Nothing here reaches Redis: the connection is only named, never opened.
const redisWithPassword = withPassword('redis://127.0.0.1:1');
let model: ScriptedModelServer;
let daemons: ModelDaemons | undefined;
let proxy: FaultProxy | undefined;
let hanging: Server | undefined;

beforeEach(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  hanging?.closeAllConnections();
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  hanging = undefined;
  await daemons?.stop();
  daemons = undefined;
  await model.close();
});

/** The worker as a daemon in this process. */
async function startWorker(extra = ''): Promise<{ port: number; dataDir: string }> {
  daemons = new ModelDaemons(model);
  const daemon = await daemons.start(workerSpec(redisWithPassword, extra));
  return { port: daemon.http.port, dataDir: daemons.dataDirOf('worker') };
}

describe('remote execution - refusals and failures', () => {
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
        const answer = await postJson(worker.port, path, body);
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
