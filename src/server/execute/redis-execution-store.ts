import { RpcError } from '../../errors.js';
import type { ExecutionStore } from '../../rpc/index.js';

interface RedisClient {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  connect(): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

/**
 * Redis connections of the execute endpoints, one per connection reference, opened on
 * first use (the `redis` package is loaded on demand) and shared by every request that
 * names the same reference.
 */
export class RedisConnections {
  private readonly clients = new Map<string, Promise<RedisClient>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** A store over the connection `ref` (whose URL is `url`), its keys under `prefix`. */
  store(ref: string, url: string, prefix: string): ExecutionStore {
    const client = (): Promise<RedisClient> => {
      let opened = this.clients.get(ref);
      if (!opened) {
        opened = connect(url, this.onError);
        // A failed connect is tried again by the next request, not remembered.
        opened.catch(() => this.clients.delete(ref));
        this.clients.set(ref, opened);
      }
      return opened;
    };
    return {
      async get(key) {
        return (await (await client()).get(prefix + key)) ?? undefined;
      },
      async set(key, value) {
        await (await client()).set(prefix + key, value);
      },
    };
  }

  async close(): Promise<void> {
    const open = [...this.clients.values()];
    this.clients.clear();
    for (const opened of open) {
      const client = await opened.catch(() => undefined);
      await (client?.close ?? client?.quit)?.call(client).catch(this.onError);
    }
  }
}

async function connect(url: string, onError: (error: unknown) => void): Promise<RedisClient> {
  let redis: { createClient(options: object): RedisClient };
  try {
    redis = (await import('redis')) as unknown as typeof redis;
  } catch (cause) {
    throw new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the Redis execution store needs the redis package: run `npm install redis`', { cause });
  }
  const client = redis.createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) } });
  client.on('error', onError);
  await client.connect();
  return client;
}
