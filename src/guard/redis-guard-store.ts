import type { FlowCall, FlowRecordResult, GuardStore } from './guard-store.js';
import type { GuardLimits } from './guard-rules.js';
import { closeRedis, connectRedis, type RedisClient } from '../redis/index.js';

/**
 * One script, so concurrent processes never lose a count: it computes the flow's counts
 * as they would be with this call, refuses (records nothing) when a limit would break,
 * else records the call — its messageId (a redelivery is not counted again), its time and
 * its agents — and sets every key to expire when the flow's duration limit has passed.
 *
 * KEYS: calls (set of messageIds), times (zset messageId → ms), agents (set)
 * ARGV: messageId, now, expireAtMs, maxAgents, maxPerMinute, maxCalls, agent...
 */
const RECORD_SCRIPT = `
local id, now = ARGV[1], tonumber(ARGV[2])
local fresh = 1 - redis.call('SISMEMBER', KEYS[1], id)
local calls = redis.call('SCARD', KEYS[1]) + fresh
local lastMinute = redis.call('ZCOUNT', KEYS[2], '(' .. (now - 60000), '+inf') + fresh
local newAgents = {}
for i = 7, #ARGV do
  if redis.call('SISMEMBER', KEYS[3], ARGV[i]) == 0 then newAgents[#newAgents + 1] = ARGV[i] end
end
local agents = redis.call('SCARD', KEYS[3]) + #newAgents
if agents > tonumber(ARGV[4]) or lastMinute > tonumber(ARGV[5]) or calls > tonumber(ARGV[6]) then
  return {0, agents, lastMinute, calls}
end
if fresh == 1 then
  redis.call('SADD', KEYS[1], id)
  redis.call('ZADD', KEYS[2], now, id)
end
if #newAgents > 0 then redis.call('SADD', KEYS[3], unpack(newAgents)) end
for k = 1, 3 do redis.call('PEXPIREAT', KEYS[k], ARGV[3]) end
return {1, agents, lastMinute, calls}
`;

export interface RedisFlowStoreOptions {
  /** `redis://host:port` (or `rediss://`, with credentials in the URL). */
  readonly url: string;
  /** Prefix of every key. Default `agent-rpc:flow:`. */
  readonly keyPrefix?: string;
}

/** A GuardStore in Redis (docs/guard.md). The `redis` package is loaded on demand. */
export class RedisGuardStore implements GuardStore {
  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** `onError` hears about connection errors (the client reconnects by itself) and a failed close. */
  static async connect(options: RedisFlowStoreOptions, onError: (error: unknown) => void = () => {}): Promise<RedisGuardStore> {
    // Fail fast instead of queueing commands while Redis is away: the guard then falls
    // back to what envelopes and this process know (docs/guard.md).
    const client = await connectRedis(options.url, 'flow store', onError);
    return new RedisGuardStore(client, options.keyPrefix ?? 'agent-rpc:flow:', onError);
  }

  async record(call: FlowCall, limits: GuardLimits): Promise<FlowRecordResult> {
    const base = `${this.prefix}{${call.correlationId}}`;
    const reply = (await this.client.eval(RECORD_SCRIPT, {
      keys: [`${base}:calls`, `${base}:times`, `${base}:agents`],
      arguments: [
        call.messageId,
        String(call.now),
        String(call.startedAt + limits.maxFlowMs + 60_000),
        String(limits.maxAgents),
        String(limits.maxCallsPerMinute),
        String(limits.maxCallsPerFlow),
        ...new Set(call.agents),
      ],
    })) as [number, number, number, number];
    const [admitted, agents, lastMinute, calls] = reply.map(Number) as [number, number, number, number];
    return { admitted: admitted === 1, counts: { agents, lastMinute, calls } };
  }

  async close(): Promise<void> {
    await closeRedis(this.client, this.onError);
  }
}
