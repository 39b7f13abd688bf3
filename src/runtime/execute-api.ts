import type { AgentConfig } from '../config/index.js';
import { ConfigError } from '../yaml/index.js';
import type { Logger } from '../logger.js';
import type { SecretResolver, SecretValue } from '../secrets/index.js';
import { executeRoutes, RedisConnections, type ExecuteAgent } from '../server/index.js';
import type { ApiRoute } from '../http-server/index.js';

/**
 * The remote execution endpoints of a process, configured by its first agent's agent.yaml
 * `execute` block: its connection references are resolved here, once, with the process's
 * (masking) secret resolver, so a model agent never repeats a connection's credentials.
 */
export async function openExecuteApi(first: AgentConfig, secrets: SecretResolver, agents: readonly ExecuteAgent[], logger: Logger): Promise<{ routes: ApiRoute[]; close(): Promise<void> }> {
  const { agent } = first;
  const settings = agent.value.execute;
  const connections = new Map<string, SecretValue>();
  for (const [name, { urlRef }] of Object.entries(settings?.connections ?? {})) {
    try {
      connections.set(name, await secrets.resolve(urlRef, first.dir));
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new ConfigError(agent.file, agent.lineOf(['execute', 'connections', name, 'urlRef']), `execute.connections.${name}.urlRef`, problem);
    }
  }
  const log = logger.child({ component: 'execute' });
  const redis = new RedisConnections((error) => log.warn({ err: error }, 'execute store connection error'));
  const routes = executeRoutes({
    agents,
    connections,
    redis,
    maxBodyBytes: settings?.maxBodyBytes ?? 4 * 1024 * 1024,
    timeoutMs: settings?.timeoutMs ?? 5 * 60_000,
  });
  return { routes, close: () => redis.close() };
}
