import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelClientOptions } from './create-model-client.js';
import type { ModelClient, ModelMessage, ModelReply, ModelRequest, ModelToolCall } from './model-client.js';
import { modelFailure, type ModelCallContext } from './model-failure.js';
import type { ModelConfig } from './models-config.js';

type AnthropicModule = typeof import('@anthropic-ai/sdk');

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The Messages API requires `max_tokens`; this is used when neither the request nor the model sets one. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** A ModelClient over the Anthropic Messages API (`messages.create`). */
export function createAnthropicClient(sdk: AnthropicModule, config: ModelConfig, options: ModelClientOptions): ModelClient {
  if (options.apiKey === undefined) throw new TypeError(`apiKey: model ${config.id} (provider anthropic) needs an API key`);
  const client = new sdk.Anthropic({
    apiKey: options.apiKey,
    // Explicit, so ANTHROPIC_BASE_URL in the environment cannot send requests elsewhere than agent.yaml says.
    baseURL: config.baseUrl ?? ANTHROPIC_BASE_URL,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const context: ModelCallContext = { id: config.id, provider: config.provider, timeoutMs: config.timeoutMs, apiKey: options.apiKey };

  return {
    id: config.id,
    provider: config.provider,
    model: config.model,
    async complete(request: ModelRequest): Promise<ModelReply> {
      let message: Message;
      try {
        message = await client.messages.create(anthropicParams(config, request), { signal: request.signal ?? null, timeout: config.timeoutMs });
      } catch (error) {
        throw modelFailure(error, context, sdk, request.signal);
      }
      return anthropicReply(message);
    },
  };
}

function anthropicParams(config: ModelConfig, request: ModelRequest): MessageCreateParamsNonStreaming {
  return {
    model: config.model,
    max_tokens: request.maxOutputTokens ?? config.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(request.system === undefined ? {} : { system: request.system }),
    messages: anthropicMessages(request.messages),
    ...(request.tools.length > 0
      ? { tools: request.tools.map((tool): Tool => ({ name: tool.name, description: tool.description, input_schema: { ...tool.parameters } as Tool.InputSchema })) }
      : {}),
    // Structured output is part of the stable Messages API in this SDK (`output_config.format`), no beta header.
    ...(request.outputSchema ? { output_config: { format: { type: 'json_schema' as const, schema: { ...request.outputSchema } } } } : {}),
  };
}

/**
 * Our transcript as Messages API turns. The API wants user and assistant turns to
 * alternate and tool results inside a user turn, so consecutive turns of one role
 * (parallel tool results, a tool result then a user note) become one turn of blocks.
 */
function anthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const turns: Array<{ role: 'user' | 'assistant'; blocks: ContentBlockParam[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        append('user', [{ type: 'text', text: message.content }]);
        break;
      case 'assistant': {
        // The API refuses empty text blocks; a turn that only called tools has none.
        const text: ContentBlockParam[] = message.content.length > 0 ? [{ type: 'text', text: message.content }] : [];
        append('assistant', [...text, ...(message.toolCalls ?? []).map(toolUseBlock)]);
        break;
      }
      case 'tool': {
        const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, is_error: message.isError ?? false };
        append('user', [result]);
        break;
      }
    }
  }
  // A turn of one text block goes as a plain string, the API's short form.
  return turns.map(({ role, blocks }) => {
    const only = blocks.length === 1 ? blocks[0] : undefined;
    return { role, content: only?.type === 'text' ? only.text : blocks };
  });
}

function toolUseBlock(call: ModelToolCall): ToolUseBlockParam {
  // `input` must be an object. Arguments another provider's model wrote as invalid JSON
  // (kept as a string) cannot be one; the tool result that follows says what was wrong.
  const input = typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments) ? call.arguments : {};
  return { type: 'tool_use', id: call.id, name: call.name, input };
}

function anthropicReply(message: Message): ModelReply {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  const usage = message.usage;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  return {
    text,
    toolCalls,
    usage: {
      // Anthropic counts cache reads and cache writes apart from input_tokens; ours includes them.
      inputTokens: usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0),
      outputTokens: usage.output_tokens,
      cachedInputTokens: cacheRead,
    },
    stopReason: message.stop_reason ?? undefined,
  };
}
