import type OpenAI from 'openai';
import type { ModelClientOptions } from './create-model-client.js';
import type { ModelClient, ModelMessage, ModelReply, ModelRequest, ModelToolCall } from './model-client.js';
import { modelFailure, type ModelCallContext } from './model-failure.js';
import type { ModelConfig } from './models-config.js';

type OpenAiModule = typeof import('openai');
type ChatMessage = OpenAI.ChatCompletionMessageParam;
type ChatParams = OpenAI.ChatCompletionCreateParamsNonStreaming;

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

// The SDK refuses to start without a key; servers that need none (local ones) ignore it,
// and the Authorization header carrying it is removed anyway (see below).
const NO_KEY = 'no-key';

/**
 * A ModelClient over OpenAI Chat Completions (`chat.completions.create`), for `openai` and
 * for `openai-compatible` servers (vLLM, Ollama, LM Studio, gateways), which speak the same API.
 */
export function createOpenAiClient(sdk: OpenAiModule, config: ModelConfig, options: ModelClientOptions): ModelClient {
  if (config.provider === 'openai' && options.apiKey === undefined) throw new TypeError(`apiKey: model ${config.id} (provider openai) needs an API key`);
  const client = new sdk.OpenAI({
    apiKey: options.apiKey ?? NO_KEY,
    // Passed explicitly so OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID in the
    // environment cannot send a model's requests elsewhere than agent.yaml says.
    baseURL: config.baseUrl ?? OPENAI_BASE_URL,
    organization: null,
    project: null,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
  });
  const context: ModelCallContext = { id: config.id, provider: config.provider, timeoutMs: config.timeoutMs, apiKey: options.apiKey };

  return {
    id: config.id,
    provider: config.provider,
    model: config.model,
    async complete(request: ModelRequest): Promise<ModelReply> {
      let completion: OpenAI.ChatCompletion;
      try {
        completion = await client.chat.completions.create(openAiParams(config, request), { signal: request.signal ?? null, timeout: config.timeoutMs });
      } catch (error) {
        throw modelFailure(error, context, sdk, request.signal);
      }
      return openAiReply(completion, context, sdk);
    },
  };
}

/** The request body: our messages, tools and output shape in Chat Completions' terms. */
function openAiParams(config: ModelConfig, request: ModelRequest): ChatParams {
  const messages: ChatMessage[] = request.system === undefined ? [] : [{ role: 'system', content: request.system }];
  for (const message of request.messages) messages.push(openAiMessage(message));
  const maxOutputTokens = request.maxOutputTokens ?? config.maxOutputTokens;
  return {
    model: config.model,
    messages,
    ...(request.tools.length > 0
      ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } } })) }
      : {}),
    // strict: false, because strict mode demands every property be required and no
    // additionalProperties, which a capability's outputSchema rarely is.
    ...(request.outputSchema ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'result', schema: { ...request.outputSchema }, strict: false } } } : {}),
    ...(maxOutputTokens === undefined ? {} : { max_completion_tokens: maxOutputTokens }),
  };
}

function openAiMessage(message: ModelMessage): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The API takes null, not an empty string, for a turn that only called tools.
        content: message.content.length > 0 ? message.content : null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          // Arguments the model wrote as invalid JSON were kept as that string: send them back as written.
          function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) },
        })),
      };
    }
    case 'tool':
      // Chat Completions has no error flag on a tool result; the content says what went wrong.
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function openAiReply(completion: OpenAI.ChatCompletion, context: ModelCallContext, sdk: OpenAiModule): ModelReply {
  const choice = completion.choices[0];
  if (choice === undefined) throw modelFailure(new Error('the answer has no choices'), context, sdk);
  const toolCalls: ModelToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    // Custom (free-text) tools are never offered, so only function calls can come back.
    if (call.type === 'function') toolCalls.push({ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) });
  }
  const usage = completion.usage;
  return {
    text: choice.message.content ?? choice.message.refusal ?? '',
    toolCalls,
    usage: {
      inputTokens: usage?.prompt_tokens ?? 0,
      outputTokens: usage?.completion_tokens ?? 0,
      cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    },
    stopReason: choice.finish_reason ?? undefined,
  };
}

/**
 * The model's JSON, parsed. Invalid JSON stays the raw string, so the loop's argument
 * check tells the model what it wrote; an empty string (some servers' "no arguments") is {}.
 */
function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
