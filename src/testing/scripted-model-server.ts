import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A language-model server on loopback that answers from a script instead of a model. It
 * speaks the two APIs model agents use, OpenAI Chat Completions (`POST /v1/chat/completions`)
 * and Anthropic Messages (`POST /v1/messages`), non-streaming, with tool calls and token
 * usage in each API's own shape, and records every request it gets (body and headers), so
 * a test can check what an agent sent — and that no secret was in it.
 *
 * Each request takes the next turn of the script. A turn is what the assistant answers:
 * text, tool calls, or both, with usage; or an HTTP error; or a function of the request
 * that returns one. When the script has run out, the server answers 500 with a message
 * saying so (and records the request), so a test never hangs on a missing turn.
 */
export interface ScriptedToolCall {
  /** Default: `call_<n>` (OpenAI) / `toolu_<n>` (Anthropic). */
  readonly id?: string;
  readonly name: string;
  readonly arguments: unknown;
}

export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
}

export type ScriptedAnswer =
  | { readonly text?: string; readonly toolCalls?: readonly ScriptedToolCall[]; readonly usage?: ScriptedUsage }
  | { readonly status: number; readonly error: string };

export type ScriptedTurn = ScriptedAnswer | ((request: RecordedModelRequest) => ScriptedAnswer);

export type ModelApi = 'openai' | 'anthropic';

export interface RecordedModelRequest {
  readonly api: ModelApi;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body; `raw` is the text as received. */
  readonly body: unknown;
  readonly raw: string;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`; the OpenAI base URL is `${url}/v1`, Anthropic's is `url`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedModelRequest[];
  /** Appends turns to the script. */
  script(...turns: ScriptedTurn[]): void;
  /** Turns not yet taken. */
  readonly remaining: number;
  close(): Promise<void>;
}

const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 10, outputTokens: 5 };
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startScriptedModelServer(turns: readonly ScriptedTurn[] = []): Promise<ScriptedModelServer> {
  const script = [...turns];
  const requests: RecordedModelRequest[] = [];
  let answered = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 500, errorBody('openai', `scripted model server: ${String(error)}`)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const api: ModelApi | undefined = path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : undefined;
    if (req.method !== 'POST' || api === undefined) return send(res, 404, { error: { message: `no such endpoint: ${req.method} ${path}` } });
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, errorBody(api, 'the request body is not JSON'));
    }
    const request: RecordedModelRequest = { api, path, headers: { ...req.headers }, body, raw };
    requests.push(request);
    const turn = script.shift();
    if (turn === undefined) return send(res, 500, errorBody(api, `scripted model server: the script has no turn left for request ${requests.length}`));
    const answer = typeof turn === 'function' ? turn(request) : turn;
    if ('status' in answer) return send(res, answer.status, errorBody(api, answer.error));
    answered++;
    const model = typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : 'scripted';
    return send(res, 200, api === 'openai' ? openaiCompletion(answer, model, answered) : anthropicMessage(answer, model, answered));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...more) => void script.push(...more),
    get remaining() {
      return script.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Each API's own error shape. */
function errorBody(api: ModelApi, message: string): unknown {
  return api === 'anthropic' ? { type: 'error', error: { type: 'api_error', message } } : { error: { message, type: 'server_error', code: null } };
}

type Answer = Exclude<ScriptedAnswer, { status: number }>;

/** A `chat.completion` object (OpenAI API reference, Chat Completions). */
function openaiCompletion(answer: Answer, model: string, n: number): unknown {
  const usage = answer.usage ?? DEFAULT_USAGE;
  const toolCalls = (answer.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${n}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: `chatcmpl-scripted-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    },
  };
}

/** A `message` object (Anthropic Messages API). */
function anthropicMessage(answer: Answer, model: string, n: number): unknown {
  const usage = answer.usage ?? DEFAULT_USAGE;
  const content = [
    ...(answer.text === undefined ? [] : [{ type: 'text', text: answer.text }]),
    ...(answer.toolCalls ?? []).map((call, i) => ({ type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: call.arguments })),
  ];
  return {
    id: `msg_scripted_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: (answer.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_read_input_tokens: usage.cachedInputTokens ?? 0,
      cache_creation_input_tokens: 0,
    },
  };
}
