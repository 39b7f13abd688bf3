import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess } from '../support/agent-process-client.js';
import { NatsTestServer } from '../support/nats-target.js';

// Six agent processes on one NATS server; every hop of a flow crosses a process boundary.
const nats = new NatsTestServer();
const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
const agents = new Map<string, AgentProcess>();

beforeAll(async () => {
  await nats.start();
  const started = await Promise.all(ids.map((id) => AgentProcess.start({ id, transport: { kind: 'nats', servers: nats.url }, peers: ids.filter((p) => p !== id).concat(id) })));
  started.forEach((agent, i) => agents.set(ids[i]!, agent));
}, 120_000);
afterAll(async () => {
  for (const agent of agents.values()) expect(await agent.stop()).toBe(0);
  await nats.stop();
}, 60_000);

const route = (path: string[]) => agents.get(path[0]!)!.call({ to: path[0]!, capability: 'route', payload: { path: path.slice(1) }, timeoutMs: 30_000 });

describe('guard across processes over NATS', () => {
  it.each([[['a1', 'a2', 'a1']], [['a1', 'a2', 'a1', 'a2', 'a1']], [['a1', 'a2', 'a1', 'a3', 'a1']]])('guard xp - %j is allowed', async (path) => {
    expect(await route(path)).toMatchObject({ status: 'ok', response: path });
  });

  it('guard xp - a1→…→a6 is refused at the sixth hop', async () => {
    const result = await route(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: effective call depth 6 exceeds limit (max 5)' } });
  });

  it('guard xp - a self-call is refused', async () => {
    const result = await route(['a1', 'a1']);
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: self-calls not allowed' });
  });

  it('guard xp - the 21st call within a minute is refused', async () => {
    const result = await agents.get('a1')!.call({ to: 'a1', capability: 'fan-out', payload: { to: 'a2', n: 21 }, timeoutMs: 30_000 });
    const outcomes = result.response as string[];
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill('ok'));
    expect(outcomes[20]).toBe('EAGENTRPC_GUARD_REJECTED: Agent call rejected: call rate limit exceeded (max 20/minute)');
  });

  it('guard xp - two agents calling each other forever are stopped; the caller gets a typed error, not a hang', async () => {
    const result = await agents.get('a3')!.call({ to: 'a3', capability: 'bounce', payload: { other: 'a4' }, timeoutMs: 30_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED' } });
  });
});
