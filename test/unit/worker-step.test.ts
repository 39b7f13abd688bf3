import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/model-agents/models/model-client.js';
import { RpcError } from '../../src/errors.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import type { Usage } from '../../src/flow-usage.js';
import type { HandlerContext } from '../../src/rpc/handler.js';
import { tapUsage } from '../../src/rpc/index.js';
import { workerStepRunner } from '../../src/remote-execution/worker-step.js';
import type { AgentStep } from '../../src/workflows/workflow-schema.js';

// A stand-in worker on loopback: each test says how it answers /execute.
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function workerAnswering(answer: (body: Record<string, unknown>, res: ServerResponse) => void): Promise<{ node: RemoteNode; bodies: Array<Record<string, unknown>> }> {
  const bodies: Array<Record<string, unknown>> = [];
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      answer(body, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const node: RemoteNode = { name: 'build-farm', description: '', apiBaseUrl: `http://127.0.0.1:${port}`, authType: 'none', skipTlsVerify: false, timeoutMs: 300, source: 'config' };
  return { node, bodies };
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const USAGE: Usage = { inputTokens: 40, outputTokens: 4, cachedInputTokens: 0, costUsd: 0.0001, modelRequests: 1 };

/** The workflow request's context, as far as a worker step reads it; `reported` hears reportUsage. */
function requestContext(reported: Usage[]): HandlerContext {
  const ctx: Partial<HandlerContext> = {
    envelope: { messageId: 'wf-request-1', headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } } as never,
    signal: new AbortController().signal,
  };
  tapUsage(ctx as HandlerContext, (usage) => reported.push(usage));
  return ctx as HandlerContext;
}

const step = (extra: Partial<AgentStep> = {}): AgentStep & { worker: string } =>
  ({ name: 'fix', type: 'agent', worker: 'build-farm', agent: { maxIterations: 50, safeMode: true }, messages: [{ role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'Fix it.' }], ...extra }) as AgentStep & { worker: string };

const GIVEN: ModelMessage[] = [
  { role: 'user', content: 'Analyze.' },
  { role: 'assistant', content: 'The host is wrong.' },
];

describe('worker step - an agent step on a remote worker', () => {
  it('worker step - sends the trace, ids, given and own messages and {message}; returns the text, the delta and the usage', async () => {
    const { node, bodies } = await workerAnswering((_, res) =>
      json(res, 200, { result: { text: 'Fixed.' }, updated_context: { messages: [{ role: 'user', content: 'Fix it.' }, { role: 'tool', content: 'ok', name: 'bash' }, { role: 'assistant', content: 'Fixed.' }], thoughts: [], usage: [USAGE, USAGE] } }),
    );
    const reported: Usage[] = [];
    const run = workerStepRunner({ remoteNodes: { list: async () => [node], get: async () => node }, agentId: 'planner' });
    const result = await run(step({ capability: 'fix' }), GIVEN, requestContext(reported));
    expect(bodies[0]).toMatchObject({
      user_id: 'planner',
      agent_id: 'planner',
      capability: 'fix',
      input: { message: 'Fix it.' },
      context: { trace_id: TRACE, parent_step_id: 'wf-request-1', messages: [...GIVEN, { role: 'assistant', content: 'Noted.' }], thoughts: [], usage: [] },
    });
    expect((bodies[0]!['context'] as { step_id: string }).step_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.output).toBe('Fixed.');
    expect(result.messages).toEqual([
      { role: 'user', content: 'Fix it.' },
      { role: 'user', content: '[result of tool bash] ok' },
      { role: 'assistant', content: 'Fixed.' },
    ]);
    expect(reported).toEqual([{ ...USAGE, inputTokens: 80, outputTokens: 8, costUsd: 0.0002, modelRequests: 2 }]);
  });

  it('worker step - the worker agent failing is EAGENTRPC_REMOTE_AGENT_FAILED, and what it spent still counts', async () => {
    const { node } = await workerAnswering((_, res) => json(res, 422, { error: { code: 'EAGENTRPC_AGENT_MAX_ITERATIONS', message: 'gave up' }, updated_context: { messages: [], thoughts: [], usage: [USAGE] } }));
    const reported: Usage[] = [];
    const run = workerStepRunner({ remoteNodes: { list: async () => [node], get: async () => node }, agentId: 'planner' });
    const failure = await run(step({ agentId: 'fixer' }), [], requestContext(reported)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ code: 'EAGENTRPC_REMOTE_AGENT_FAILED', details: { agentId: 'fixer', remoteCode: 'EAGENTRPC_AGENT_MAX_ITERATIONS' } });
    expect(reported).toEqual([USAGE]);
  });

  it('worker step - a worker that does not answer within the node timeout is EAGENTRPC_REMOTE_TIMEOUT', async () => {
    const { node } = await workerAnswering(() => {});
    const run = workerStepRunner({ remoteNodes: { list: async () => [node], get: async () => node }, agentId: 'planner' });
    await expect(run(step(), [], requestContext([]))).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_TIMEOUT' });
  });

  it('worker step - a result without text is its JSON; a string is itself', async () => {
    const results: unknown[] = [{ verdict: 'ok' }, 'plain'];
    const { node } = await workerAnswering((_, res) => json(res, 200, { result: results.shift(), updated_context: { messages: [], thoughts: [], usage: [] } }));
    const run = workerStepRunner({ remoteNodes: { list: async () => [node], get: async () => node }, agentId: 'planner' });
    expect((await run(step(), [], requestContext([]))).output).toBe('{"verdict":"ok"}');
    expect((await run(step(), [], requestContext([]))).output).toBe('plain');
  });
});
