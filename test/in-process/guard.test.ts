import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/call-result.js';
import type { AgentNode, AgentNodeOptions } from '../../src/rpc/agent-node.js';
import type { Logger } from '../../src/logger.js';
import { decodeEnvelope, encodeEnvelope } from '../../src/envelope/index.js';
import { Collector } from '../support/collector.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet, until } from '../support/fleet.js';
import { RecordedAudit } from '../support/recorded-audit.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

type NodeOptions = Omit<AgentNodeOptions, 'id' | 'transports' | 'peers'>;

/** Agents whose `route` capability calls the next agent of `path`, returning the agents visited. */
async function routers(ids: readonly string[], options: NodeOptions = {}): Promise<Map<string, AgentNode>> {
  const nodes = new Map<string, AgentNode>();
  for (const id of ids) {
    const node = await fleet.node(id, options);
    node.handle<{ path: string[] }>('route', async (input, ctx) => {
      const [next, ...rest] = input.path;
      if (next === undefined) return [id];
      const result = await ctx.requestAgent<string[]>({ to: next, capability: 'route', payload: { path: rest } });
      if (result.status !== 'ok') throw result.error;
      return [id, ...result.response!];
    });
    nodes.set(id, node);
  }
  return nodes;
}

async function route(path: string[], options: NodeOptions = {}): Promise<CallResult<string[]>> {
  const ids = [...new Set(path)];
  await routers(ids, options);
  const user = await fleet.node('user');
  return user.requestAgent<string[]>({ to: path[0]!, capability: 'route', payload: { path: path.slice(1) }, timeoutMs: 20_000 });
}

describe('guard - chains', () => {
  it.each([
    [['1', '2', '1']],
    [['1', '2', '1', '2', '1']],
    [['1', '2', '1', '3', '1']],
    [['1', '2', '3', '4', '5']],
  ])('guard - %j is allowed', async (path) => {
    expect(await route(path)).toMatchObject({ status: 'ok', response: path });
  });

  it('guard - 1→2→3→4→5→6 is refused at the sixth hop, with a typed error to the user', async () => {
    const result = await route(['1', '2', '3', '4', '5', '6']);
    expect(result).toMatchObject({
      status: 'error',
      error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: effective call depth 6 exceeds limit (max 5)', details: { rule: 'depth', from: '5', to: '6', value: 6, limit: 5 } },
    });
  });

  it('guard - a flow touching 11 agents is refused', async () => {
    const path = ['1', ...Array.from({ length: 10 }, (_, i) => [String(i + 2), '1']).flat()];
    const result = await route(path);
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: flow involves too many sessions (11, max 10)' });
  });
});

describe('guard - counts, time and loops', () => {
  async function fanOut(calls: number, options: NodeOptions = {}) {
    const worker = await fleet.node('worker', options);
    worker.handle('noop', () => 'ok');
    const boss = await fleet.node('boss', options);
    boss.handle<number>('fan-out', async (n, ctx) => {
      const statuses: string[] = [];
      for (let i = 0; i < n; i++) {
        const result = await ctx.requestAgent({ to: 'worker', capability: 'noop', payload: null });
        statuses.push(result.status === 'ok' ? 'ok' : result.error!.message);
      }
      return statuses;
    });
    const user = await fleet.node('user');
    return (await user.requestAgent<string[]>({ to: 'boss', capability: 'fan-out', payload: calls })).response!;
  }

  it('guard - the 21st call within a minute is refused', async () => {
    const statuses = await fanOut(21);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill('ok'));
    expect(statuses[20]).toBe('Agent call rejected: call rate limit exceeded (max 20/minute)');
  });

  it('guard - the 101st call of a flow is refused', async () => {
    const statuses = await fanOut(101, { guard: { maxCallsPerMinute: 1000 } });
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(100);
    expect(statuses[100]).toBe('Agent call rejected: total call limit exceeded (max 100 per flow)');
  });

  it('guard - a flow older than 5 minutes is refused (injected clock)', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const clock = { now: () => now };
    const later = await fleet.node('later', { clock });
    later.handle('noop', () => 'ok');
    const slow = await fleet.node('slow', { clock });
    slow.handle('think-then-call', async (_input, ctx) => {
      now += 5 * 60_000 + 1; // the handler "thinks" for five minutes
      const result = await ctx.requestAgent({ to: 'later', capability: 'noop', payload: null });
      return result.error?.message ?? result.status;
    });
    const user = await fleet.node('user', { clock });
    const result = await user.requestAgent({ to: 'slow', capability: 'think-then-call', payload: null, timeoutMs: 600_000 });
    expect(result.response).toBe('Agent call rejected: flow timeout (max 5 minutes)');
  });

  it('guard - a self-call is refused', async () => {
    const solo = await fleet.node('solo');
    solo.handle('again', async (_input, ctx) => (await ctx.requestAgent({ to: 'solo', capability: 'again', payload: null })).error?.message);
    const user = await fleet.node('user');
    expect((await user.requestAgent({ to: 'solo', capability: 'again', payload: null })).response).toBe('Agent call rejected: self-calls not allowed');
  });

  it('guard - two agents that call each other forever are stopped; the user gets a typed error, not a hang', async () => {
    for (const [self, other] of [['ping', 'pong'], ['pong', 'ping']] as const) {
      const node = await fleet.node(self);
      node.handle('bounce', async (_input, ctx) => {
        const result = await ctx.requestAgent({ to: other, capability: 'bounce', payload: null });
        if (result.status !== 'ok') throw result.error;
        return result.response;
      });
    }
    const user = await fleet.node('user');
    const result = await user.requestAgent({ to: 'ping', capability: 'bounce', payload: null, timeoutMs: 20_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', details: { rule: 'rate' } } });
  });

  it('guard - calls through the node inside a handler join its flow too, so such a loop is stopped the same way', async () => {
    for (const [self, other] of [['ping', 'pong'], ['pong', 'ping']] as const) {
      const node = await fleet.node(self);
      node.handle('bounce', async () => {
        // Not ctx.requestAgent: the node's own method, after an await, as library code would.
        await Promise.resolve();
        const result = await node.requestAgent({ to: other, capability: 'bounce', payload: null });
        if (result.status !== 'ok') throw result.error;
        return result.response;
      });
    }
    const user = await fleet.node('user');
    const result = await user.requestAgent({ to: 'ping', capability: 'bounce', payload: null, timeoutMs: 20_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED', details: { rule: 'rate' } } });
  });

  it('guard - with implicitFlow off, ctx.requestAgent still carries the flow and node.requestAgent starts a new one', async () => {
    const seen: Array<{ correlationId: string; causedBy: string | undefined }> = [];
    const leaf = await fleet.node('leaf');
    leaf.handle('note', (_input, ctx) => {
      seen.push({ correlationId: ctx.correlationId, causedBy: ctx.envelope.causedBy });
      return null;
    });
    const middle = await fleet.node('middle', { implicitFlow: false });
    middle.handle('fan', async (_input, ctx) => {
      await ctx.requestAgent({ to: 'leaf', capability: 'note', payload: null });
      await middle.requestAgent({ to: 'leaf', capability: 'note', payload: null });
      return null;
    });
    const user = await fleet.node('user');
    const call = await user.requestAgent({ to: 'middle', capability: 'fan', payload: null });
    expect(call.status).toBe('ok');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.correlationId).toBe(call.correlationId);
    expect(seen[0]!.causedBy).toBe(call.messageId);
    expect(seen[1]!.correlationId).not.toBe(call.correlationId);
    expect(seen[1]!.causedBy).toBeUndefined();
  });
});

describe('guard - reporting and the receiver check', () => {
  it('guard - a refusal is a [RECURSION] log line, a guard_reject audit record and a metric', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (_fields, message) => lines.push(message),
      error: () => {},
      isLevelEnabled: (level) => level === 'warn',
      child: () => logger,
    };
    const audit = new RecordedAudit();
    const rules: string[] = [];
    await route(['1', '2', '3', '4', '5', '6'], { logger, audit, metrics: { guardRejected: (rule) => rules.push(rule) } });
    expect(lines).toContain('[RECURSION] Rejected call 5→6: chain depth 6 exceeds max 5');
    expect(audit.entries.filter((e) => e.kind === 'guard_reject')).toEqual([expect.objectContaining({ agentId: '5', from: '5', to: '6', rule: 'depth', value: 6, limit: 5 })]);
    expect(rules).toEqual(['depth']);
  });

  it('guard - agents passing a flow around without doing work are warned about before any limit refuses them', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (_fields, message) => lines.push(message),
      error: () => {},
      isLevelEnabled: (level) => level === 'warn',
      child: () => logger,
    };
    const warnings: string[] = [];
    const options = { logger, metrics: { guardWarning: (kind: string) => warnings.push(kind) } };
    // A flow that relays through six agents at once, none of them doing any work.
    const result = await route(['1', '2', '3', '1', '4', '1', '5', '1'], options);
    expect(result.status).toBe('ok');
    expect(lines.filter((l) => l.startsWith('[RECURSION] Warning:'))).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[RECURSION\] Warning: flow \S+ made 5 agent-to-agent calls in a row with no work in between \(\d→\d\)$/);
    expect(warnings).toEqual(['idle-hops']);
  });

  it('guard - handlers that work between calls are not warned about', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug: () => {}, info: () => {}, warn: (_f, m) => lines.push(m), error: () => {}, isLevelEnabled: (l) => l === 'warn', child: () => logger };
    const ids = ['1', '2', '3', '4', '5', '6'];
    for (const id of ids) {
      const node = await fleet.node(id, { logger });
      node.handle<{ path: string[] }>('work-then-route', async (input, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 15)); // the handler's own work
        const [next, ...rest] = input.path;
        if (next === undefined) return 'done';
        return (await ctx.requestAgent({ to: next, capability: 'work-then-route', payload: { path: rest } })).response;
      });
    }
    const user = await fleet.node('user');
    expect((await user.requestAgent({ to: '1', capability: 'work-then-route', payload: { path: ['2', '1', '3', '1', '4', '1'] } })).response).toBe('done');
    expect(lines.filter((l) => l.startsWith('[RECURSION]'))).toEqual([]);
  });

  it('guard - the receiver refuses an agent-initiated request that carries no flow, answering the caller', async () => {
    const svc = await fleet.node('svc');
    svc.handle('work', () => 'must not run');
    const raw = await fleet.raw();
    const replies = new Collector({ autoAck: true });
    await raw.subscribe('test.replies', replies.handler);
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(foreignRequest({ causedBy: 'parent-message-1' })) });
    await until(() => replies.deliveries.length === 1);
    const reply = decodeEnvelope(replies.deliveries[0]!.body);
    expect(reply.ok && reply.envelope.payload).toMatchObject({
      ok: false,
      error: { code: 'EAGENTRPC_GUARD_REJECTED', message: 'Agent call rejected: correlation ID required for agent-initiated calls', details: { rule: 'correlation-required' } },
    });
  });
});
