import { ConfigError, fieldPath } from './config-error.js';

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const SECRET_REF = '${secret:';

/**
 * Replaces `${env:NAME}` inside every string of a parsed config, except in secret fields
 * (`...Ref`; aliases such as `auth_token` are renamed to theirs before this runs): those
 * hold secret references, resolved (and kept redacted) by the secret resolver.
 * An unset variable is a ConfigError naming the file, line and field. `${secret:..}` is a
 * secret reference: outside a `...Ref` field it would stay literal text, so it is refused.
 */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, file: string, lineOf: (path: readonly PropertyKey[]) => number | undefined, path: PropertyKey[] = []): unknown {
  if (typeof value === 'string') {
    if (value.includes(SECRET_REF)) {
      throw new ConfigError(file, lineOf(path), fieldPath(path), '${secret:..} is only read in fields whose name ends in Ref (secret references); use ${env:NAME} here');
    }
    return value.replace(ENV_REF, (_match, name: string) => {
      const resolved = env[name];
      if (resolved === undefined) throw new ConfigError(file, lineOf(path), fieldPath(path), `environment variable ${name} is not set`);
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => expandEnv(item, env, file, lineOf, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = key.endsWith('Ref') ? item : expandEnv(item, env, file, lineOf, [...path, key]);
    }
    return out;
  }
  return value;
}
