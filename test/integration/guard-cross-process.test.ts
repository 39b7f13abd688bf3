import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess } from '../support/agent-process-client.js';
import type { AgentProcessConfig } from '../support/agent-process.js';
import { runNats } from '../support/nats-target.js';
import { runRedis } from '../support/redis-target.js';

// Agent processes on one NATS server; every hop of a flow crosses a node, most cross a
// process. a1..a6 run one process each and a7..a11 share theirs with a2..a6; r, x and y
// count whole flows in a shared Redis; `late` runs six minutes ahead; p and q allow a
// high call rate so the total limit is the one that fires.
const nats = await runNats();
const redis = await runRedis();
const ids = Array.from({ length: 11 }, (_, i) => `a${i + 1}`);
const processes = new Map<string, AgentProcess>();
const SIX_MINUTES = 6 * 60_000;

beforeAll(async () => {
  const transport = nats.spec();
  const peers = [...ids, 'r', 'x', 'y', 'late', 'p', 'q'];
  const configs: AgentProcessConfig[] = [
    { id: 'a1', transport, peers },
    ...[2, 3, 4, 5, 6].map((n) => ({ id: `a${n}`, alsoIds: [`a${n + 5}`], transport, peers })),
    ...['r', 'x', 'y'].map((id) => ({ id, transport, peers, guardStoreUrl: redis.url, guardStoreKeyPrefix: redis.keyPrefix })),
    { id: 'late', transport, peers, clockOffsetMs: SIX_MINUTES },
    ...['p', 'q'].map((id) => ({ id, transport, peers, guard: { maxCallsPerMinute: 1_000 } })),
  ];
  const started = await Promise.all(configs.map((config) => AgentProcess.start(config)));
  for (const [i, agent] of started.entries()) processes.set(configs[i]!.id, agent);
}, 180_000);
afterAll(async () => {
  for (const agent of processes.values()) expect(await agent.stop()).toBe(0);
}, 60_000);

const entry = (id: string) => processes.get(id)!;
const route = (path: string[]) => entry(path[0]!).call({ to: path[0]!, capability: 'route', payload: { path: path.slice(1) }, timeoutMs: 30_000 });
const rejected = (message: string) => `EAGENTRPC_GUARD_REJECTED: Agent call rejected: ${message}`;

describe('guard across processes over NATS', () => {
  it.each([[['a1', 'a2', 'a1']], [['a1', 'a2', 'a1', 'a2', 'a1']], [['a1', 'a2', 'a1', 'a3', 'a1']]])('guard xp - %j is allowed', async (path) => {
    expect(await route(path)).toMatchObject({ status: 'ok', response: path });
  });

  it('guard xp - a1→…→a6 is refused at the sixth hop', async () => {
    const result = await route(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: effective call depth 6 exceeds limit (max 5)' } });
  });

  it('guard xp - a flow that reaches an 11th agent is refused', async () => {
    // a1 → a2 → a1 → a3 → a1 … → a11: depth stays 2, distinct agents grow to 11.
    const path = ['a1', ...ids.slice(1).flatMap((id) => [id, 'a1'])].slice(0, -1);
    const result = await route(path);
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: flow involves too many sessions (11, max 10)' } });
    // One hop short of it (10 agents) passes.
    expect(await route(path.slice(0, -2))).toMatchObject({ status: 'ok' });
  });

  it('guard xp - a self-call is refused', async () => {
    const result = await route(['a1', 'a1']);
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: self-calls not allowed' });
  });

  it('guard xp - the 21st call within a minute is refused', async () => {
    const result = await entry('a1').call({ to: 'a1', capability: 'fan-out', payload: { to: 'a2', n: 21 }, timeoutMs: 30_000 });
    const outcomes = result.response as string[];
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill('ok'));
    expect(outcomes[20]).toBe(rejected('call rate limit exceeded (max 20/minute)'));
  });

  it('guard xp - a flow older than 5 minutes is refused (a clock six minutes ahead, no waiting)', async () => {
    const result = await route(['a1', 'late']);
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: flow timeout (max 5 minutes)' } });
  });

  it('guard xp - the 101st call of a flow is refused', async () => {
    const result = await entry('p').call({ to: 'p', capability: 'fan-out', payload: { to: 'q', n: 101 }, timeoutMs: 60_000 });
    const outcomes = result.response as string[];
    expect(outcomes.slice(0, 100)).toEqual(Array(100).fill('ok'));
    expect(outcomes[100]).toBe(rejected('total call limit exceeded (max 100 per flow)'));
  }, 60_000);

  it('guard xp - parallel branches in other processes: the shared store counts them all (26 calls, 6 refused)', async () => {
    const branches = [{ via: 'x', to: 'r', n: 12 }, { via: 'y', to: 'r', n: 12 }];
    const result = await entry('r').call({ to: 'r', capability: 'spread', payload: { branches }, timeoutMs: 60_000 });
    const outcomes = (result.response as string[][]).flat();
    // r→x and r→y, then 24 fan-out calls: the flow may make 20 a minute.
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(18);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual(Array(6).fill(rejected('call rate limit exceeded (max 20/minute)')));
  }, 60_000);

  it('guard xp - without a shared store the same branches are not counted together (the documented limit)', async () => {
    const branches = [{ via: 'a2', to: 'a1', n: 12 }, { via: 'a3', to: 'a1', n: 12 }];
    const result = await entry('a1').call({ to: 'a1', capability: 'spread', payload: { branches }, timeoutMs: 60_000 });
    expect((result.response as string[][]).flat()).toEqual(Array(24).fill('ok'));
  }, 60_000);

  it('guard xp - two agents calling each other forever are stopped; the caller gets a typed error, not a hang', async () => {
    const result = await entry('a3').call({ to: 'a3', capability: 'bounce', payload: { other: 'a4' }, timeoutMs: 30_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED' } });
  });
});
