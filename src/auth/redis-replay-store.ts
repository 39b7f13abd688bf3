import { closeRedis, connectRedis, type RedisClient } from '../redis/index.js';
import type { ReplayCheck, SharedReplayStore } from './replay-guard.js';

/**
 * One atomic step: the first delivery to claim a key stores its delivery id until the
 * window has passed (`fresh`); the same delivery again is a `redelivery`; any other is a
 * `replayed` envelope.
 *
 * KEYS: the envelope's key. ARGV: deliveryId, expiresAt (ms epoch).
 */
const CHECK_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 2 end
return 3
`;
const OUTCOMES: Record<number, ReplayCheck> = { 1: 'fresh', 2: 'redelivery', 3: 'replayed' };

export interface RedisReplayStoreOptions {
  /** `redis://host:port` (or `rediss://`, with credentials in the URL): the guard's shared store server. */
  readonly url: string;
  /** Prefix of every key. Default `agent-rpc:replay:`. */
  readonly keyPrefix?: string;
}

/** HMAC replay memory in Redis, shared by an agent's replicas (docs/auth.md). */
export class RedisReplayStore implements SharedReplayStore {
  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** `onError` hears about connection errors (the client reconnects by itself) and a failed close. */
  static async connect(options: RedisReplayStoreOptions, onError: (error: unknown) => void = () => {}): Promise<RedisReplayStore> {
    return new RedisReplayStore(await connectRedis(options.url, 'replay store', onError), options.keyPrefix ?? 'agent-rpc:replay:', onError);
  }

  async check(key: string, deliveryId: string, expiresAt: number, now: number): Promise<ReplayCheck> {
    // An envelope already outside its window is refused as stale before it gets here.
    const reply = await this.client.eval(CHECK_SCRIPT, { keys: [this.prefix + key], arguments: [deliveryId, String(Math.max(expiresAt, now + 1))] });
    const outcome = OUTCOMES[Number(reply)];
    if (outcome === undefined) throw new Error(`replay store answered ${String(reply)}`);
    return outcome;
  }

  async close(): Promise<void> {
    await closeRedis(this.client, this.onError);
  }
}
