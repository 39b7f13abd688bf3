import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createModelClient, type ModelClient, type ModelConfig, type ModelMessage, type ModelRequest } from '../../src/model-agents/models/index.js';
import { RpcError } from '../../src/errors.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const KEY = 'sk-test-4f9c2a7e1b8d';
type Provider = 'openai' | 'anthropic';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function modelConfig(provider: ModelConfig['provider'], extra: Partial<ModelConfig> = {}): ModelConfig {
  const baseUrl = provider === 'anthropic' ? server.url : `${server.url}/v1`;
  return { id: `${provider}-main`, provider, model: `${provider}-model`, baseUrl, apiKeyRef: '${env:MODEL_KEY}', timeoutMs: 10_000, maxRetries: 2, ...extra };
}

function client(provider: Provider, extra: Partial<ModelConfig> = {}, options: { fetch?: typeof fetch } = {}): Promise<ModelClient> {
  return createModelClient(modelConfig(provider, extra), { apiKey: KEY, ...options });
}

const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [{ role: 'user', content }], tools: [], ...extra });
const body = (n: number): any => server.requests[n]!.body;
const readTool = { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.each(['openai', 'anthropic'] as const)('model clients - %s', (provider) => {
  it(`model clients - ${provider} - a text answer comes back with its usage and stop reason`, async () => {
    server.script({ text: 'Hello.', usage: { inputTokens: 12, outputTokens: 3 } });
    const model = await client(provider);
    expect(model).toMatchObject({ id: `${provider}-main`, provider, model: `${provider}-model` });
    const reply = await model.complete(ask('hi', { system: 'Be brief.' }));
    expect(reply).toEqual({ text: 'Hello.', toolCalls: [], usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 0 }, stopReason: provider === 'openai' ? 'stop' : 'end_turn' });
    expect(body(0)).toEqual(
      provider === 'openai'
        ? { model: 'openai-model', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] }
        : { model: 'anthropic-model', max_tokens: 4096, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] },
    );
  });

  it(`model clients - ${provider} - usage with cached tokens is normalised: inputTokens includes the cached ones`, async () => {
    server.script({ text: 'ok', usage: { inputTokens: 40, outputTokens: 9, cachedInputTokens: 30 } });
    const reply = await (await client(provider)).complete(ask('hi'));
    // OpenAI's prompt_tokens already include cached_tokens; Anthropic's input_tokens exclude cache reads.
    expect(reply.usage).toEqual(provider === 'openai' ? { inputTokens: 40, outputTokens: 9, cachedInputTokens: 30 } : { inputTokens: 70, outputTokens: 9, cachedInputTokens: 30 });
  });

  it(`model clients - ${provider} - the API key travels in the auth header and nowhere in an error`, async () => {
    server.script({ text: 'ok' }, { status: 401, error: `invalid api key: ${KEY}` });
    const model = await client(provider);
    await model.complete(ask('hi'));
    // Both SDKs send the key as a bearer token (@anthropic-ai/sdk 1.x included).
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.raw).not.toContain(KEY);
    const error = await failure(model.complete(ask('again')));
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify(error.toWire())).not.toContain(KEY);
    expect(error.message).toContain('[redacted]');
  });

  it(`model clients - ${provider} - HTTP 401 is EAGENTRPC_MODEL_FAILED, not retriable, and is not retried`, async () => {
    server.script({ status: 401, error: 'bad key' });
    const error = await failure((await client(provider)).complete(ask('hi')));
    expect(error).toMatchObject({ code: 'EAGENTRPC_MODEL_FAILED', retriable: false, details: { model: `${provider}-main`, provider, status: 401 } });
    expect(error.message).toBe(`model ${provider}-main (provider ${provider}) answered HTTP 401: bad key`);
    expect(server.requests).toHaveLength(1);
  });

  it(`model clients - ${provider} - HTTP 503 with maxRetries 0 is retriable, after one request`, async () => {
    server.script({ status: 503, error: 'overloaded' });
    const error = await failure((await client(provider, { maxRetries: 0 })).complete(ask('hi')));
    expect(error).toMatchObject({ code: 'EAGENTRPC_MODEL_FAILED', retriable: true, details: { model: `${provider}-main`, provider, status: 503 } });
    expect(server.requests).toHaveLength(1);
  });

  it(`model clients - ${provider} - an unreachable server is retriable, without a status`, async () => {
    const port = await closedPort();
    const baseUrl = provider === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;
    const error = await failure((await client(provider, { baseUrl, maxRetries: 0 })).complete(ask('hi')));
    expect(error).toMatchObject({ code: 'EAGENTRPC_MODEL_FAILED', retriable: true, details: { model: `${provider}-main`, provider } });
    expect(error.details).not.toHaveProperty('status');
    expect(error.message).toMatch(/could not be reached: .*ECONNREFUSED/);
  });

  it(`model clients - ${provider} - aborting while the request is in flight rejects with the abort reason`, async () => {
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    // The turn runs when the request has reached the server: abort there, before it answers.
    server.script(() => {
      controller.abort(reason);
      return { text: 'too late' };
    });
    const thrown = await (await client(provider)).complete(ask('hi', { signal: controller.signal })).catch((error: unknown) => error);
    expect(thrown).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it(`model clients - ${provider} - an already aborted signal rejects with its reason and sends nothing`, async () => {
    const controller = new AbortController();
    controller.abort();
    const thrown = await (await client(provider)).complete(ask('hi', { signal: controller.signal })).catch((error: unknown) => error);
    expect(thrown).toBe(controller.signal.reason);
    expect(thrown).toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('model clients - openai', () => {
  it('model clients - openai - a tool call is answered, and the follow-up carries the call and its result in Chat Completions shape', async () => {
    server.script({ toolCalls: [{ id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'It says A.' });
    const model = await client('openai');
    const messages: ModelMessage[] = [{ role: 'user', content: 'read a.txt' }];
    const first = await model.complete({ messages, tools: [readTool] });
    expect(first).toMatchObject({ text: '', toolCalls: [{ id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }], stopReason: 'tool_calls' });
    expect(body(0).tools).toEqual([{ type: 'function', function: readTool }]);

    messages.push({ role: 'assistant', content: first.text, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: 'call_1', name: 'read', content: 'A' });
    const second = await model.complete({ messages, tools: [readTool] });
    expect(second.text).toBe('It says A.');
    expect(body(1).messages).toEqual([
      { role: 'user', content: 'read a.txt' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'A' },
    ]);
  });

  it('model clients - openai - arguments that are not JSON are kept as the raw string', async () => {
    server.script({ toolCalls: [{ id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }] });
    // Cut the arguments short on the way back, as a model that stopped mid-JSON would write them.
    const truncating: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const text = (await response.text()).replace('"{\\"path\\":\\"a.txt\\"}"', '"{\\"path\\":"');
      return new Response(text, { status: response.status, headers: { 'content-type': 'application/json' } });
    };
    const reply = await (await client('openai', {}, { fetch: truncating })).complete(ask('read a.txt', { tools: [readTool] }));
    expect(reply.toolCalls).toEqual([{ id: 'call_1', name: 'read', arguments: '{"path":' }]);
  });

  it('model clients - openai - outputSchema becomes response_format json_schema, maxOutputTokens max_completion_tokens', async () => {
    server.script({ text: '{"verdict":"ok"}' });
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    await (await client('openai')).complete(ask('judge', { outputSchema: schema, maxOutputTokens: 300 }));
    expect(body(0)).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'result', schema, strict: false } }, max_completion_tokens: 300 });
    expect(body(0)).not.toHaveProperty('tools');
  });

  it('model clients - openai-compatible - a baseUrl and no key work, and no Authorization header is sent', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment');
    server.script({ text: 'local answer' });
    const config: ModelConfig = { id: 'local', provider: 'openai-compatible', model: 'llama3', baseUrl: `${server.url}/v1`, timeoutMs: 10_000, maxRetries: 0 };
    const reply = await (await createModelClient(config, { apiKey: undefined })).complete(ask('hi'));
    expect(reply.text).toBe('local answer');
    expect(server.requests[0]!.headers).not.toHaveProperty('authorization');
    expect(body(0).model).toBe('llama3');
  });
});

describe('model clients - anthropic', () => {
  it('model clients - anthropic - two parallel tool calls, then the follow-up carries tool_use blocks and ONE user turn of tool_result blocks', async () => {
    server.script(
      {
        text: 'Let me look.',
        toolCalls: [
          { id: 'toolu_a', name: 'read', arguments: { path: 'a.txt' } },
          { id: 'toolu_b', name: 'read', arguments: { path: 'b.txt' } },
        ],
      },
      { text: 'A, and b.txt is missing.' },
    );
    const model = await client('anthropic');
    const messages: ModelMessage[] = [{ role: 'user', content: 'read a.txt and b.txt' }];
    const first = await model.complete({ messages, tools: [readTool] });
    expect(first).toMatchObject({
      text: 'Let me look.',
      toolCalls: [
        { id: 'toolu_a', name: 'read', arguments: { path: 'a.txt' } },
        { id: 'toolu_b', name: 'read', arguments: { path: 'b.txt' } },
      ],
      stopReason: 'tool_use',
    });
    expect(body(0).tools).toEqual([{ name: 'read', description: 'Read a file', input_schema: readTool.parameters }]);

    messages.push(
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'toolu_a', name: 'read', content: 'A' },
      { role: 'tool', toolCallId: 'toolu_b', name: 'read', content: 'no such file', isError: true },
    );
    await model.complete({ messages, tools: [readTool] });
    expect(body(1).messages).toEqual([
      { role: 'user', content: 'read a.txt and b.txt' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a.txt' } },
          { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'no such file', is_error: true },
        ],
      },
    ]);
  });

  it('model clients - anthropic - outputSchema becomes output_config.format, maxOutputTokens max_tokens', async () => {
    server.script({ text: '{"verdict":"ok"}' });
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    await (await client('anthropic', { maxOutputTokens: 1000 })).complete(ask('judge', { outputSchema: schema, maxOutputTokens: 300 }));
    expect(body(0)).toMatchObject({ output_config: { format: { type: 'json_schema', schema } }, max_tokens: 300 });
    expect(body(0)).not.toHaveProperty('tools');
  });
});

describe('model clients - createModelClient', () => {
  it('create-model-client - openai and anthropic without a key are refused naming apiKey', async () => {
    await expect(createModelClient(modelConfig('openai'), { apiKey: undefined })).rejects.toThrow(new TypeError('apiKey: model openai-main (provider openai) needs an API key'));
    await expect(createModelClient(modelConfig('anthropic'), { apiKey: undefined })).rejects.toThrow(TypeError);
  });

  it('create-model-client - a missing provider package is EAGENTRPC_MISSING_PACKAGE naming it', async () => {
    vi.resetModules();
    vi.doMock('@anthropic-ai/sdk', () => {
      throw Object.assign(new Error("Cannot find package '@anthropic-ai/sdk'"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    try {
      const fresh = await import('../../src/model-agents/models/create-model-client.js');
      await expect(fresh.createModelClient(modelConfig('anthropic'), { apiKey: KEY })).rejects.toMatchObject({
        code: 'EAGENTRPC_MISSING_PACKAGE',
        message: 'model anthropic-main (provider anthropic) needs the @anthropic-ai/sdk package: run `npm install @anthropic-ai/sdk`',
      });
    } finally {
      vi.doUnmock('@anthropic-ai/sdk');
      vi.resetModules();
    }
  });
});
