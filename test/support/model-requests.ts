import { readdirSync, readFileSync } from 'node:fs';
import type { RecordedModelRequest } from '../../src/testing/scripted-model-server.js';

interface OpenAiBody {
  messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }>;
  tools?: Array<{ function: { name: string; description: string; parameters: unknown } }>;
}
interface AnthropicBody {
  system?: string;
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string; description: string; input_schema: unknown }>;
}

/** The system prompt of a recorded request, in either API's shape. */
export function systemOf(request: RecordedModelRequest): string {
  if (request.api === 'anthropic') return (request.body as AnthropicBody).system ?? '';
  const first = (request.body as OpenAiBody).messages[0];
  return first?.role === 'system' ? String(first.content) : '';
}

/** The tools offered, by name, with their descriptions and schemas. */
export function toolsOf(request: RecordedModelRequest): Array<{ name: string; description: string; parameters: unknown }> {
  if (request.api === 'anthropic') return ((request.body as AnthropicBody).tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.input_schema }));
  return ((request.body as OpenAiBody).tools ?? []).map((tool) => tool.function);
}

/** The text of the tool results in the request's last turn (OpenAI `tool` messages, Anthropic `tool_result` blocks). */
export function lastToolResults(request: RecordedModelRequest): string[] {
  if (request.api === 'anthropic') {
    const last = (request.body as AnthropicBody).messages.at(-1);
    const blocks = Array.isArray(last?.content) ? (last.content as Array<{ type: string; content?: unknown }>) : [];
    return blocks.filter((block) => block.type === 'tool_result').map((block) => (typeof block.content === 'string' ? block.content : JSON.stringify(block.content)));
  }
  const messages = (request.body as OpenAiBody).messages;
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(String(messages[i]!.content));
  return results;
}

/** The first user message's text. */
export function firstUserText(request: RecordedModelRequest): string {
  const messages = (request.body as OpenAiBody | AnthropicBody).messages;
  const first = messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content);
}

/** Processes whose command line is exactly `args` (read from /proc): none may outlive a cancelled command. */
export function processesRunning(...args: string[]): number {
  const wanted = `${args.join('\0')}\0`;
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted) count++;
    } catch {
      // The process ended while we looked.
    }
  }
  return count;
}
