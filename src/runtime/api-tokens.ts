import type { AgentConfig } from '../config/index.js';
import { ConfigError } from '../yaml/index.js';
import type { SecretResolver } from '../secrets/index.js';
import { ApiTokens } from '../http-server/index.js';

/** The API tokens of a process: those listed in its first agent's agent.yaml (`api.tokens`). */
export async function loadApiTokens(config: AgentConfig, secrets: SecretResolver): Promise<ApiTokens> {
  const { agent } = config;
  const entries = [];
  for (const [index, entry] of (agent.value.api?.tokens ?? []).entries()) {
    try {
      entries.push({ user: entry.user, role: entry.role, token: await secrets.resolve(entry.tokenRef, config.dir) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(agent.file, agent.lineOf(['api', 'tokens', index, 'tokenRef']), `api.tokens[${index}].tokenRef`, message);
    }
  }
  return new ApiTokens(entries);
}
