import type { AgentConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import { importOptional, missingPackage } from '../optional-package.js';
import { A2A_PATH_PREFIX, AGENT_CARD_PATH } from '../server/index.js';
import type { FrontDoor } from '../http-server/index.js';

const A2A_SDK = '@a2a-js/sdk';
const FEATURE = 'serving agents over A2A';

export interface A2aModules {
  readonly server: typeof import('../server/a2a/a2a-server.js');
  readonly taskStore: typeof import('../server/a2a/task-file-store.js');
}

/**
 * The A2A server's modules. They import the A2A SDK, an optional peer dependency, so they
 * are loaded here only: a process without the SDK still starts. With the SDK every agent is
 * served as an A2A agent; without it, an agent.yaml `a2a:` block is EAGENTRPC_MISSING_PACKAGE,
 * and otherwise the process serves no A2A and says so once.
 */
export async function loadA2aModules(configs: readonly AgentConfig[], logger: Logger): Promise<A2aModules | undefined> {
  try {
    return await importOptional(async () => ({ server: await import('../server/a2a/a2a-server.js'), taskStore: await import('../server/a2a/task-file-store.js') }), FEATURE, A2A_SDK);
  } catch (error) {
    if (configs.some((config) => config.agent.value.a2a !== undefined)) throw error;
    logger.warn({ err: error }, `A2A not served: ${FEATURE} needs the ${A2A_SDK} package`);
    return undefined;
  }
}

/** Without the SDK the A2A paths answer 503 naming the package, rather than a bare 404. */
export const a2aUnavailable: FrontDoor = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path !== AGENT_CARD_PATH && !path.startsWith(A2A_PATH_PREFIX)) return false;
  res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: missingPackage(FEATURE, A2A_SDK).message }));
  return true;
};
