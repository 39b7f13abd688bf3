import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(() => server.close());

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

describe('scripted model server', () => {
  it('model server - answers OpenAI Chat Completions with tool calls, then text, with usage, recording each request', async () => {
    server.script(
      { toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }], usage: { inputTokens: 120, outputTokens: 14, cachedInputTokens: 100 } },
      { text: 'done', usage: { inputTokens: 150, outputTokens: 3 } },
    );
    const request = { model: 'gpt-test', messages: [{ role: 'user', content: 'list files' }], tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }] };
    const first = await post('/v1/chat/completions', request, { authorization: 'Bearer sk-test' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'bash' } }] } }],
      usage: { prompt_tokens: 120, completion_tokens: 14, total_tokens: 134, prompt_tokens_details: { cached_tokens: 100 } },
    });
    // Arguments travel as a JSON string, as the API sends them.
    expect(JSON.parse(first.json.choices[0].message.tool_calls[0].function.arguments)).toEqual({ command: 'ls' });
    const second = await post('/v1/chat/completions', request);
    expect(second.json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'done' } });
    expect(server.requests.map((r) => [r.api, r.path])).toEqual([
      ['openai', '/v1/chat/completions'],
      ['openai', '/v1/chat/completions'],
    ]);
    expect(server.requests[0]!.body).toEqual(request);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.remaining).toBe(0);
  });

  it('model server - answers Anthropic Messages with tool_use blocks and usage in that API\'s shape', async () => {
    server.script({ text: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } }], usage: { inputTokens: 40, outputTokens: 9, cachedInputTokens: 30 } });
    const answer = await post('/v1/messages', { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'read a.txt' }] }, { 'x-api-key': 'k' });
    expect(answer.json).toEqual({
      id: 'msg_scripted_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.txt' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 9, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 },
    });
    expect(server.requests[0]!.headers['x-api-key']).toBe('k');
  });

  it('model server - a turn may be computed from the request it answers', async () => {
    server.script((request) => ({ text: `you said ${(request.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content}` }));
    const answer = await post('/v1/messages', { model: 'm', messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.json.content).toEqual([{ type: 'text', text: 'you said hello' }]);
  });

  it('model server - scripted errors, an exhausted script, bad JSON and unknown paths answer with the API\'s error shape', async () => {
    server.script({ status: 429, error: 'rate limited' });
    expect(await post('/v1/chat/completions', { model: 'm', messages: [] })).toEqual({ status: 429, json: { error: { message: 'rate limited', type: 'server_error', code: null } } });
    const exhausted = await post('/v1/messages', { model: 'm', messages: [] });
    expect(exhausted.status).toBe(500);
    expect(exhausted.json).toMatchObject({ type: 'error', error: { message: expect.stringContaining('no turn left for request 2') } });
    expect((await post('/v1/messages', '{not json')).status).toBe(400);
    expect((await post('/v1/completions', {})).status).toBe(404);
    // Every JSON request to an endpoint is recorded, answered or not.
    expect(server.requests).toHaveLength(2);
  });
});
