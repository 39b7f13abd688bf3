import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { silentLogger } from '../../src/logger.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { DEFAULT_GUARD_LIMITS } from '../../src/guard/guard-rules.js';
import { RedisGuardStore } from '../../src/guard/redis-guard-store.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { runRedis } from '../support/redis-target.js';

// The store against the run's redis-server, under a key prefix of this file's own.
const redis = await runRedis();
let store: RedisGuardStore;
const prefix = redis.keyPrefix;
const T0 = Date.now();
const limits = { ...DEFAULT_GUARD_LIMITS, maxAgents: 4, maxCallsPerMinute: 5, maxCallsPerFlow: 8 };

beforeAll(async () => {
  store = await RedisGuardStore.connect({ url: redis.url, keyPrefix: prefix });
});
afterAll(async () => {
  await store?.close();
});

/** `at` is ms into the flow, which started at T0. */
const call = (correlationId: string, messageId: string, at: number, agents = ['a', 'b']) => ({ correlationId, messageId, agents, startedAt: T0, now: T0 + at });

describe('guard - shared flow store (Redis)', () => {
  it('flow store - counts concurrent calls from several processes exactly; a redelivery is not counted twice', async () => {
    const others = await Promise.all([1, 2, 3].map(() => RedisGuardStore.connect({ url: redis.url, keyPrefix: prefix })));
    try {
      const wide = { ...limits, maxCallsPerMinute: 1_000, maxCallsPerFlow: 1_000 };
      const clients = [store, ...others];
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => clients[i % 4]!.record(call('f-concurrent', `m-${i}`, 1_000), wide)));
      // Every call saw a distinct count: none was lost or counted twice.
      expect(results.map((r) => r.counts.calls).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await others[0]!.record(call('f-concurrent', 'm-7', 1_000), wide)).toMatchObject({ admitted: true, counts: { calls: 40 } });
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('flow store - refuses without recording when rate, total or agents would break', async () => {
    for (let i = 1; i <= 5; i++) expect((await store.record(call('f-rate', `m${i}`, 10_000 + i), limits)).admitted).toBe(true);
    expect(await store.record(call('f-rate', 'm6', 10_010), limits)).toEqual({ admitted: false, counts: { agents: 2, lastMinute: 6, calls: 6 } });
    // A minute later the window has room again; the refused call was never counted.
    expect(await store.record(call('f-rate', 'm7', 80_000), limits)).toEqual({ admitted: true, counts: { agents: 2, lastMinute: 1, calls: 6 } });
    expect(await store.record(call('f-agents', 'm1', 1, ['a', 'b', 'c', 'd', 'e']), limits)).toMatchObject({ admitted: false, counts: { agents: 5 } });
    for (let i = 0; i < 8; i++) await store.record(call('f-total', `m${i}`, i * 61_000), limits);
    expect(await store.record(call('f-total', 'm9', 9 * 61_000), limits)).toMatchObject({ admitted: false, counts: { calls: 9 } });
  });

  it('flow store - agent.yaml guard.store connects the daemon to Redis; a wrong URL names the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-store-config-'));
    cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, dir, { recursive: true });
    const agentFile = join(dir, 'agent.yaml');
    const original = readFileSync(agentFile, 'utf8');
    const env = { ALICE_TOKEN: 'a', BOB_TOKEN: 'b', CAROL_TOKEN: 'c', VIC_TOKEN: 'v', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(dir, 'data') };
    writeFileSync(agentFile, `${original}guard: { store: { kind: redis, url: "http://${redis.url.slice('redis://'.length)}" } }\n`);
    await expect(loadAgentConfig(dir, builtinPlugins, env)).rejects.toThrow(/agent\.yaml:\d+: guard\.store\.url: must be a redis:\/\/ or rediss:\/\/ URL/);
    writeFileSync(agentFile, `${original}guard: { store: { kind: redis, url: "${redis.url}" } }\n`);
    const daemon = await startDaemon(dir, builtinPlugins, { env, logger: silentLogger });
    expect(daemon.agents[0]!.node.guardStore).toBeInstanceOf(RedisGuardStore);
    await daemon.stop();
  });
});
