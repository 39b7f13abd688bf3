/**
 * Variables in a workflow's strings: `${NAME}` (a param, a run-time param or an earlier
 * step's output) and `$1`…`$9` (positional params). `$$` is a literal `$`, so a text can say
 * "$5" without meaning the fifth param.
 *
 * Left alone, on purpose: `$NAME` without braces (shell text in messages keeps `$HOME`),
 * `${env:NAME}` (expanded when the file is loaded, where the user wrote it) and
 * `${input.…}` (a model agent handler's reference to its request payload).
 */

const REFERENCE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([1-9]))/g;

/** A step's output variable: upper case, as the issue and the RFC write them. */
export const OUTPUT_NAME_RE = /^[A-Z_][A-Z0-9_]*$/;
/** A param's name: anything `${NAME}` can refer to. */
export const PARAM_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables a step sees, by name; positional params are under `1`…`9`. */
export type Variables = Readonly<Record<string, string>>;

/** The names a text refers to, in order, each once: `${NAME}` gives `NAME`, `$2` gives `2`. */
export function referencesIn(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(REFERENCE)) {
    const name = match[1] ?? match[2];
    if (name !== undefined) names.add(name);
  }
  return [...names];
}

/** How a reference is written, for messages: `${NAME}` or `$1`. */
export function referenceText(name: string): string {
  return /^[1-9]$/.test(name) ? `$${name}` : `\${${name}}`;
}

/**
 * Fills every reference of `text` from `variables`. A reference to a variable that is not
 * there is a TypeError: workflows are checked before they run, so this is a caller's mistake.
 */
export function substitute(text: string, variables: Variables): string {
  return text.replace(REFERENCE, (match, braced: string | undefined, positional: string | undefined) => {
    const name = braced ?? positional;
    if (name === undefined) return '$';
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === undefined) throw new TypeError(`substitute: ${referenceText(name)} is not defined`);
    return value;
  });
}

/** `substitute` over every string of a JSON value (object keys stay as written). */
export function substituteJson(value: unknown, variables: Variables): unknown {
  if (typeof value === 'string') return substitute(value, variables);
  if (Array.isArray(value)) return value.map((item) => substituteJson(item, variables));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteJson(item, variables);
    return out;
  }
  return value;
}

/** A step's output as a variable's value: a string as it is, any other JSON as JSON text. */
export function variableText(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? '';
}
