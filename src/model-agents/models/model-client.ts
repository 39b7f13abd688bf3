/**
 * The one shape every model provider is spoken to in: a conversation of messages, the
 * tools the model may call, and one reply. Provider clients (openai, anthropic,
 * openai-compatible) translate it to and from their wire format; the tool loop never sees
 * a provider's types.
 */

/** A tool call the model asked for; `arguments` is the parsed JSON object it wrote. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

export type ModelMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ModelToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly content: string; readonly isError?: boolean };

/** A tool as the model reads it: name, description and a JSON Schema for its arguments. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelRequest {
  /** The system prompt; sent as the provider's system message/field. */
  readonly system?: string;
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelTool[];
  /** Ask for a JSON answer of this shape (the capability's outputSchema). */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Upper bound on the answer's tokens. Default: the provider's own (anthropic requires one: 4096). */
  readonly maxOutputTokens?: number;
  readonly signal?: AbortSignal;
}

/** Tokens of one model request. `cachedInputTokens` is the part of `inputTokens` served from the provider's prompt cache. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
}

export interface ModelReply {
  /** The assistant's text (empty when it only called tools). */
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly usage: ModelUsage;
  /** The provider's finish/stop reason, as it said it. */
  readonly stopReason: string | undefined;
}

export interface ModelClient {
  /** `models[].id` in agent.yaml. */
  readonly id: string;
  readonly provider: string;
  /** The provider's model name. */
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}
