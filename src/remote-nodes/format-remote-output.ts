/** A prompt the remote agent raised and the caller rejected: its type and the first 200 characters of its question. */
export interface RejectedPrompt {
  readonly type: string;
  readonly question: string;
}

export const PROMPT_SUMMARY_CHARS = 200;
export const MAX_OUTPUT_CHARS = 10_000;
const HEAD_CHARS = 500;
const TAIL_CHARS = 9_500;
export const EMPTY_OUTPUT = 'Remote agent completed but produced no output.';

/** The part of a prompt's question that may be kept and shown: never the full text. */
export function summarizePrompt(type: string, question: string): RejectedPrompt {
  return { type, question: question.slice(0, PROMPT_SUMMARY_CHARS) };
}

/**
 * What the caller sees of a finished remote session: the last assistant message (or a
 * sentence saying there was none), then a note listing auto-rejected prompts. The note is
 * counted in the length: above 10,000 characters the text keeps its first 500 and its
 * last 9,500 (where the note is), with the number of characters cut in between.
 */
export function formatRemoteOutput(lastAssistantMessage: string, rejectedPrompts: readonly RejectedPrompt[]): string {
  let text = lastAssistantMessage.length > 0 ? lastAssistantMessage : EMPTY_OUTPUT;
  if (rejectedPrompts.length > 0) {
    const list = rejectedPrompts.map((prompt) => `- ${prompt.type}: ${prompt.question}`).join('\n');
    text += `\n\n[Note: ${rejectedPrompts.length} prompt(s) from the remote agent were auto-rejected:\n${list}]`;
  }
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const cut = text.length - HEAD_CHARS - TAIL_CHARS;
  return `${text.slice(0, HEAD_CHARS)}\n... [truncated ${cut} chars] ...\n${text.slice(-TAIL_CHARS)}`;
}
