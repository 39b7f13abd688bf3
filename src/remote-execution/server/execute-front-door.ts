import { defaultCapabilityOf, sectionOf, type FrontDoorPlugin, type FrontDoorProcess, type OpenFrontDoor } from '../../config/index.js';
import { ConfigError } from '../../yaml/index.js';
import type { SecretValue } from '../../secrets/index.js';
import { executeConfigSchema } from './execute-config.js';
import { executeRoutes, type ExecuteAgent } from './execute-routes.js';
import { RedisConnections } from './redis-execution-store.js';

/**
 * The remote execution endpoints of a process (`/execute`, docs/remote-execution.md),
 * configured by its first agent's agent.yaml `execute` block: its connection references are
 * resolved here, once, with the process's (masking) secret resolver, so a model agent never
 * repeats a connection's credentials. Every agent of the process can be executed on.
 */
export const executeFrontDoor: FrontDoorPlugin = {
  name: 'execute',
  configShape: { execute: executeConfigSchema },
  open: openExecute,
};

async function openExecute({ first, secrets, logger }: FrontDoorProcess): Promise<OpenFrontDoor> {
  const { agent } = first;
  const settings = sectionOf(first, 'execute', executeConfigSchema);
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
  const agents: ExecuteAgent[] = [];
  return {
    attach({ id, port, config }) {
      agents.push({ id, port, capabilities: config.capabilities.value.capabilities.map((c) => c.name), ...defaultCapabilityOf(config) });
    },
    routes: () =>
      executeRoutes({
        agents,
        connections,
        redis,
        maxBodyBytes: settings?.maxBodyBytes ?? 4 * 1024 * 1024,
        timeoutMs: settings?.timeoutMs ?? 5 * 60_000,
      }),
    closeAfterServer: () => redis.close(),
  };
}
