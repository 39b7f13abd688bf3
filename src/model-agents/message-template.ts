const INPUT_REF = /\$\{input(?:\.([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*))?\}/g;

/**
 * Fills `${input.<path>}` (and `${input}`, the whole payload) from the request payload: a
 * string as it is, anything else as JSON; a path the payload lacks becomes empty (the
 * capability's inputSchema decides what is required). `${env:NAME}` was expanded when the
 * file was loaded, where the user wrote it, and nowhere else.
 */
export function fillTemplate(template: string, input: unknown): string {
  return template.replace(INPUT_REF, (_match, path: string | undefined) => {
    let value: unknown = input;
    for (const key of path?.split('.') ?? []) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  });
}
