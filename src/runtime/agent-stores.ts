import { join } from 'node:path';
import { FileAuditLog, type AuditLog } from '../audit/index.js';
import type { AgentConfig } from '../config/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics } from '../observability/index.js';
import { openSharedStores, type SharedStores } from './shared-stores.js';

/** The stores an agent keeps open while it runs: its dedupe store (sqlite), its audit log and those its replicas share. */
export interface AgentStores extends SharedStores {
  readonly idempotency?: IdempotencyStore;
  readonly audit: AuditLog;
  /** Closes what was opened, the last first. */
  close(): Promise<void>;
}

/** Opens the agent's stores under `dataDir` (its audit log, dedupe store) and those in the Redis of `guard.store`. */
export async function openAgentStores(config: AgentConfig, dataDir: string, logger: Logger, metrics: RpcMetrics): Promise<AgentStores> {
  const { agent, inbox } = config;
  const closers: Array<() => Promise<void>> = [];
  let idempotency: IdempotencyStore | undefined;
  if (inbox.idempotency?.store === 'sqlite') {
    const { SqliteIdempotencyStore } = await import('../idempotency/sqlite-store.js');
    const sqlite = await SqliteIdempotencyStore.open({ path: join(dataDir, 'dedupe.db') });
    closers.push(async () => sqlite.close());
    idempotency = sqlite;
  }
  const { rotate, retain, exclude } = agent.value.audit;
  const audit = await FileAuditLog.open({ path: join(dataDir, 'audit.jsonl'), logger: logger.child({ agentId: agent.value.agent.id }), rotate, retain, exclude });
  closers.push(() => audit.close());
  const shared = await openSharedStores(agent.value, logger, metrics, closers);
  return {
    ...shared,
    ...(idempotency ? { idempotency } : {}),
    audit,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
