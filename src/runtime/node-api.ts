import { join } from 'node:path';
import { dataDirOf, type AgentConfig } from '../config/index.js';
import { ConfigError } from '../yaml/index.js';
import type { Logger } from '../logger.js';
import type { SecretResolver } from '../secrets/index.js';
import { SessionManager, sessionRoutes, type SessionRecord } from '../server/index.js';
import { ApiTokens, JsonFileStore, type ApiRoute } from '../http-server/index.js';

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

/**
 * The session API of this process; sessions are kept under the first agent's data dir.
 * Opened before the agents, whose approval prompts it answers; they attach once built.
 */
export async function openSessions(first: AgentConfig, logger: Logger): Promise<{ manager: SessionManager; routes: ApiRoute[] }> {
  const store = await JsonFileStore.open<SessionRecord>(join(dataDirOf(first), 'sessions'), (record) => record.sessionId);
  const manager = new SessionManager({
    store,
    logger: logger.child({ component: 'sessions' }),
    maxPerUser: first.agent.value.session?.maxPerUser ?? 100,
    timeoutMs: first.agent.value.session?.timeoutMs ?? 5 * 60_000,
  });
  await manager.load();
  return { manager, routes: sessionRoutes(manager) };
}
