import type { Logger } from '../logger.js';
import { LogThrottle, type RpcMetrics } from '../observability/index.js';
import { ReplayGuard, type ReplayCheck, type SharedReplayStore } from './replay-guard.js';

/** A shared store slower than this is treated as unavailable for that envelope. */
export const REPLAY_STORE_TIMEOUT_MS = 1_000;

/**
 * The replay memory of one HMAC provider: this process's own (ReplayGuard), and, when
 * configured, the store its agent's replicas share. The local memory answers first (a
 * replay to this process costs no round trip) and is what remains when the store fails:
 * then the envelope is judged on local memory alone (fail open, like the guard's flow
 * store) and `onStoreError` hears about it.
 */
export class ReplayMemory {
  private readonly local: ReplayGuard;

  constructor(
    maxEntries: number,
    private readonly store: SharedReplayStore | undefined,
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {
    this.local = new ReplayGuard(maxEntries);
  }

  check(key: string, deliveryId: string, expiresAt: number, now: number): ReplayCheck | Promise<ReplayCheck> {
    const local = this.local.check(key, deliveryId, expiresAt, now);
    if (local !== 'fresh' || this.store === undefined) return local;
    return this.checkShared(this.store, key, deliveryId, expiresAt, now);
  }

  private async checkShared(store: SharedReplayStore, key: string, deliveryId: string, expiresAt: number, now: number): Promise<ReplayCheck> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`replay store did not answer within ${REPLAY_STORE_TIMEOUT_MS} ms`)), REPLAY_STORE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([store.check(key, deliveryId, expiresAt, now), timeout]);
    } catch (error) {
      this.onStoreError(error);
      return 'fresh';
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * What happens when the shared replay store fails: each envelope judged on local memory
 * only is counted (`agent_rpc_auth_warnings_total{kind="replay-store-unavailable"}`) and
 * logged at most every 10 s (a Redis outage must not flood the logs).
 */
export function replayStoreErrorReporter(logger: Logger, metrics: RpcMetrics): (error: unknown) => void {
  const throttle = new LogThrottle(10_000);
  return (error) => {
    metrics.authWarning?.('replay-store-unavailable');
    if (throttle.due() === undefined) return;
    logger.warn({ err: error }, 'hmac replay store unavailable: replays are caught by this process only');
  };
}
