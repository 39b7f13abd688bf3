import { closeRedis, connectRedis, type RedisClient } from '../../redis/index.js';
import type { ExecutionStore } from '../../rpc/index.js';

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
        opened = connectRedis(url, 'execution store', this.onError);
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
      if (client) await closeRedis(client, this.onError);
    }
  }
}
