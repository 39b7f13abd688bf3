import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRpcEnvelope } from '../../src/envelope/index.js';
import { encodeFlowState, FLOW_HEADER } from '../../src/guard/flow-state.js';
import { DEFAULT_GUARD_LIMITS } from '../../src/guard/guard-rules.js';
import { RedisGuardStore } from '../../src/guard/redis-guard-store.js';
import { RunawayGuard } from '../../src/guard/runaway-guard.js';
import { startRedisServer, type RedisServerHandle } from '../../tools/brokers/redis-server.js';

// The shared flow store while its redis-server is down: a server of this file's own.
let redis: RedisServerHandle;
let store: RedisGuardStore;
const limits = { ...DEFAULT_GUARD_LIMITS, maxAgents: 4, maxCallsPerMinute: 5, maxCallsPerFlow: 8 };

beforeAll(async () => {
  redis = await startRedisServer();
  store = await RedisGuardStore.connect({ url: redis.url });
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

describe('guard - shared flow store (Redis)', () => {
  it('flow store - the guard admits on local counts when the store is down, and says so', async () => {
    const errors: unknown[] = [];
    const guard = new RunawayGuard(limits, store, (error) => errors.push(error));
    const envelope = (messageId: string): AgentRpcEnvelope => ({
      version: 1, kind: 'request', messageId, correlationId: 'f-down', causedBy: 'parent', from: 'agent://a', to: 'agent://b', capability: 'x', payload: null,
      headers: { [FLOW_HEADER]: encodeFlowState({ startedAt: Date.now(), chain: ['a', 'b'], calls: 1, recent: [Date.now()] }) },
    });
    expect(await guard.admitShared(envelope('m1'), Date.now())).toBeUndefined();
    await redis.stop();
    try {
      expect(await guard.admitShared(envelope('m2'), Date.now())).toBeUndefined();
      expect(errors).toHaveLength(1);
    } finally {
      await redis.restart();
    }
  });
});
