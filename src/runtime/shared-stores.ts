import { replayStoreErrorReporter, type SharedReplayStore } from '../auth/index.js';
import type { AgentFile } from '../config/index.js';
import type { GuardStore } from '../guard/index.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics } from '../observability/index.js';

export interface SharedStores {
  readonly guardStore?: GuardStore;
  readonly replayStore?: SharedReplayStore;
  readonly onReplayStoreError?: (error: unknown) => void;
}

/**
 * The stores an agent's replicas share, all in the Redis of `guard.store`: whole-flow
 * guard counts, and the HMAC replay memory when `rpc.auth.replay.store` is `redis` (config
 * loading has checked that guard.store is then set). Each one's close is pushed to `closers`.
 */
export async function openSharedStores(agent: AgentFile, logger: Logger, metrics: RpcMetrics, closers: Array<() => Promise<void>>): Promise<SharedStores> {
  const guardConfig = agent.guard?.store;
  if (!guardConfig) return {};
  const id = agent.agent.id;
  const { RedisGuardStore } = await import('../guard/redis-guard-store.js');
  const guardStore = await RedisGuardStore.connect(guardConfig, (error) => logger.debug({ err: error, agentId: id }, 'flow store connection error'));
  closers.push(() => guardStore.close());
  const auth = agent.rpc?.auth;
  if (auth?.required !== 'hmac' || auth.replay?.store !== 'redis') return { guardStore };
  const { RedisReplayStore } = await import('../auth/redis-replay-store.js');
  const replayStore = await RedisReplayStore.connect(
    { url: guardConfig.url, ...(auth.replay.keyPrefix ? { keyPrefix: auth.replay.keyPrefix } : {}) },
    (error) => logger.debug({ err: error, agentId: id }, 'replay store connection error'),
  );
  closers.push(() => replayStore.close());
  return { guardStore, replayStore, onReplayStoreError: replayStoreErrorReporter(logger.child({ agentId: id }), metrics) };
}
