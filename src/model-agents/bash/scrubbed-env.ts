import { isSecretName } from '../../secrets/secret-masker.js';

export interface ScrubbedEnvOptions {
  /** Names kept even when they look secret (e.g. a deliberately shared `NPM_TOKEN`). */
  readonly allow: readonly string[];
  /** Values the commands must never see: any variable containing one is dropped. */
  readonly secretValues: readonly string[];
}

/**
 * The environment a model's commands run with: the agent's own, less every variable named
 * like a secret or holding a known secret value (a model that can run `env` can read it).
 * PATH, HOME, LANG and the like pass through.
 */
export function scrubbedEnv(env: NodeJS.ProcessEnv, options: ScrubbedEnvOptions): Record<string, string> {
  if (!Array.isArray(options.allow)) throw new TypeError('allow must be an array of variable names');
  if (!Array.isArray(options.secretValues)) throw new TypeError('secretValues must be an array of strings');
  const allowed = new Set(options.allow);
  const secrets = options.secretValues.filter((value) => typeof value === 'string' && value !== '');
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!allowed.has(name) && (isSecretName(name) || secrets.some((secret) => value.includes(secret)))) continue;
    kept[name] = value;
  }
  return kept;
}
