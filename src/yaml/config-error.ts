/**
 * A mistake in a config file: the message names the file, the line and the field, so the
 * operator can go straight to it. A TypeError because it is a caller mistake: never retried.
 */
export class ConfigError extends TypeError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${field === '' ? '' : `${field}: `}${problem}`);
    this.name = 'ConfigError';
  }
}

/** `peers[0].auth.issuer` from a zod/yaml path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
