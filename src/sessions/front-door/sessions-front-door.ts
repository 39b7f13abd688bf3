import { join } from 'node:path';
import {
  dataDirOf,
  defaultCapabilityOf,
  sectionOf,
  type FrontDoorPlugin,
  type FrontDoorProcess,
  type OpenFrontDoor,
} from '../../config/index.js';
import { JsonFileStore } from '../../http-server/index.js';
import { SessionManager, sessionConfigSchema, sessionRoutes, type SessionRecord } from '../index.js';

/**
 * The session API of a process (docs/sessions.md); sessions are kept under the first agent's
 * data dir. Opened before the agents, whose approval prompts it answers; they attach once
 * built. Its records are flushed once the agents have stopped.
 */
export const sessionsFrontDoor: FrontDoorPlugin<SessionManager> = {
  name: 'sessions',
  configShape: { session: sessionConfigSchema },
  open: openSessions,
};

async function openSessions({ first, logger }: FrontDoorProcess): Promise<OpenFrontDoor<SessionManager>> {
  const settings = sectionOf(first, 'session', sessionConfigSchema);
  const store = await JsonFileStore.open<SessionRecord>(join(dataDirOf(first), 'sessions'), (record) => record.sessionId);
  const manager = new SessionManager({
    store,
    logger: logger.child({ component: 'sessions' }),
    maxPerUser: settings?.maxPerUser ?? 100,
    timeoutMs: settings?.timeoutMs ?? 5 * 60_000,
  });
  await manager.load();
  return {
    handle: manager,
    wire: (_config, wiring) => ({ ...wiring, approvals: manager.prompts }),
    attach: ({ port, config }) => manager.attach({ port, ...defaultCapabilityOf(config) }),
    routes: () => sessionRoutes(manager),
    closeAfterAgents: () => manager.flush(),
  };
}
