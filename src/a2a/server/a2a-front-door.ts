import { join } from 'node:path';
import {
  dataDirOf,
  defaultCapabilityOf,
  sectionOf,
  type FrontDoorPlugin,
  type FrontDoorProcess,
  type OpenFrontDoor,
} from '../../config/index.js';
import type { FrontDoor } from '../../http-server/index.js';
import { importOptional, missingPackage } from '../../optional-package.js';
import { noApprovals } from '../../rpc/index.js';
import { a2aConfigSchema } from './a2a-config.js';
import { A2A_PATH_PREFIX, DEFAULT_A2A_TASKS_PER_USER } from './a2a-names.js';
import { AGENT_CARD_PATH } from '../index.js';
import type { A2aServer } from './a2a-server.js';

const A2A_SDK = '@a2a-js/sdk';
const FEATURE = 'serving agents over A2A';

/**
 * Every agent of the process as an A2A agent (docs/a2a.md): its card and JSON-RPC endpoint,
 * its tasks kept in its data directory. The server's modules import the A2A SDK, an optional
 * peer dependency, so they are loaded when the front door opens, before any agent is built:
 * a process without the SDK still starts. Without it, an agent.yaml `a2a:` block is
 * EAGENTRPC_MISSING_PACKAGE, and otherwise the process serves no A2A and says so once.
 */
export const a2aFrontDoor: FrontDoorPlugin<A2aServer> = {
  name: 'a2a',
  configShape: { a2a: a2aConfigSchema },
  open: openA2a,
};

async function openA2a(context: FrontDoorProcess): Promise<OpenFrontDoor<A2aServer>> {
  const { configs, logger } = context;
  let modules;
  try {
    modules = await importOptional(async () => ({ server: await import('./a2a-server.js'), taskStore: await import('./task-file-store.js') }), FEATURE, A2A_SDK);
  } catch (error) {
    if (configs.some((config) => sectionOf(config, 'a2a', a2aConfigSchema) !== undefined)) throw error;
    logger.warn({ err: error }, `A2A not served: ${FEATURE} needs the ${A2A_SDK} package`);
    return { requests: a2aUnavailable };
  }
  const { A2aServer } = modules.server;
  const { TaskFileStore } = modules.taskStore;
  const a2a = new A2aServer({ tokens: context.tokens, ready: context.ready, logger: logger.child({ component: 'a2a' }), version: context.version });
  return {
    handle: a2a,
    // Questions of an A2A task's run go to its client; every other to the gates before.
    wire: (_config, wiring) => ({ ...wiring, approvals: a2a.runs.gateOver(wiring.approvals ?? noApprovals) }),
    async attach({ id, port, config }) {
      const settings = sectionOf(config, 'a2a', a2aConfigSchema);
      const capabilities = config.capabilities.value.capabilities;
      // Kept in the data directory, so a client can read its tasks across a restart.
      const taskStore = await TaskFileStore.open(join(dataDirOf(config), 'a2a-tasks', id), settings?.tasksPerUser ?? DEFAULT_A2A_TASKS_PER_USER, logger.child({ component: 'a2a', agentId: id }));
      a2a.attach({ id, port, capabilities: new Set(capabilities.map((c) => c.name)), capabilityConfigs: capabilities, ...defaultCapabilityOf(config), ...settings, taskStore });
    },
    requests: a2a.frontDoor,
    listening: (baseUrl) => a2a.listen(baseUrl),
    closeBeforeAgents: () => a2a.runs.declineQuestions(),
  };
}

/** Without the SDK the A2A paths answer 503 naming the package, rather than a bare 404. */
const a2aUnavailable: FrontDoor = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path !== AGENT_CARD_PATH && !path.startsWith(A2A_PATH_PREFIX)) return false;
  res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: missingPackage(FEATURE, A2A_SDK).message }));
  return true;
};
