/** A string result as it is, else its `text` (a model agent's answer), else JSON. */
export function outputText(result: unknown): string {
  if (typeof result === 'string') return result;
  const text = (result as { text?: unknown } | null | undefined)?.text;
  if (typeof text === 'string') return text;
  return JSON.stringify(result ?? null);
}
