/** The text a session shows for a handler's result: a string as is, else its `text`/`message`/`output`/`answer` field, else JSON. */
export function replyText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data === null || data === undefined) return '';
  if (typeof data === 'object') {
    for (const field of ['text', 'message', 'output', 'answer'] as const) {
      const value = (data as Record<string, unknown>)[field];
      if (typeof value === 'string') return value;
    }
  }
  return JSON.stringify(data);
}
