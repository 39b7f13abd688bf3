import { backoffDelay, type BackoffPolicy } from '../backoff.js';
import { importOptional } from '../optional-package.js';

/** The few calls of the `redis` package's client that agent-rpc's shared stores use. */
export interface RedisClient {
  connect(): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Delays between reconnects: from 100 ms, doubling, at most 5 s, jittered so replicas that lost Redis together do not return together. */
const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * One way to open Redis for every shared store (guard flow counts, HMAC replay memory, the
 * execute endpoints' execution stores): the `redis` package loaded on demand, and commands
 * that fail fast instead of queueing while Redis is away, so the caller can fall back to
 * what its process knows (docs/guard.md). `onError` hears about connection errors; the
 * client reconnects by itself, on the one retry schedule (backoff.ts).
 */
export async function connectRedis(url: string, purpose: string, onError: (error: unknown) => void): Promise<RedisClient> {
  const redis = (await importOptional(() => import('redis'), `the Redis ${purpose}`, 'redis')) as unknown as { createClient(options: object): RedisClient };
  const client = redis.createClient({
    url,
    disableOfflineQueue: true,
    // The client counts retries from 0; backoff attempts from 1.
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: (retries: number) => backoffDelay(RECONNECT_BACKOFF, retries + 1) },
  });
  client.on('error', onError);
  await client.connect();
  return client;
}

/** Closes a client; one whose connection is already gone may refuse, and there is nothing left to release. */
export async function closeRedis(client: RedisClient, onError: (error: unknown) => void): Promise<void> {
  await (client.close ?? client.quit)?.call(client).catch(onError);
}
