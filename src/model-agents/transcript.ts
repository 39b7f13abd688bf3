import type { ModelMessage } from './models/model-client.js';

/** Long text for a log line: head and tail, with what was left out counted. */
export function summarize(text: string, max = 500): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)} … [${text.length - max} characters omitted] … ${text.slice(text.length - tail)}`;
}

const MESSAGES_KEPT = 40;

/** The transcript as an error's details carry it: the last messages, each cut short, so the error stays small on the wire. */
export function transcriptForError(transcript: readonly ModelMessage[]): unknown[] {
  return transcript.slice(-MESSAGES_KEPT).map((message) => {
    switch (message.role) {
      case 'assistant':
        return { role: 'assistant', content: summarize(message.content, 2_000), ...(message.toolCalls ? { toolCalls: message.toolCalls.map((call) => ({ name: call.name, arguments: summarize(JSON.stringify(call.arguments) ?? 'null', 1_000) })) } : {}) };
      case 'tool':
        return { role: 'tool', name: message.name, content: summarize(message.content, 2_000), ...(message.isError ? { isError: true } : {}) };
      default:
        return { role: message.role, content: summarize(message.content, 2_000) };
    }
  });
}
