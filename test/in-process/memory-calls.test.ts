import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeEnvelope, isUuid } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { LocalBusEvents } from '../../src/rpc/local-bus.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { Collector } from '../support/collector.js';
import { MemoryFleet, gate, until } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

describe('requestAgent - sync mode', () => {
  it('requestAgent - returns the handler result with status ok, a fresh correlationId and latency', async () => {
    const caller = await fleet.node('caller');
    const echo = await fleet.node('echo');
    echo.handle<{ text: string }>('echo', (input) => ({ echoed: input.text }));
    const result = await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: { text: 'hi' } });
    expect(result.status).toBe('ok');
    expect(result.response).toEqual({ echoed: 'hi' });
    expect(isUuid(result.correlationId)).toBe(true);
    expect(isUuid(result.messageId!)).toBe(true);
    expect(result.latencyMs).toBeGreaterThan(0);
    const again = await caller.requestAgent({ to: 'echo', capability: 'echo', payload: { text: 'x' } });
    expect(again.correlationId).not.toBe(result.correlationId);
  });

  it('requestAgent - a handler returning undefined answers null', async () => {
    const caller = await fleet.node('caller');
    (await fleet.node('quiet')).handle('nothing', () => undefined);
    const result = await caller.requestAgent({ to: 'quiet', capability: 'nothing', payload: {} });
    expect(result).toMatchObject({ status: 'ok', response: null });
  });

  it('requestAgent - errors cross the wire as data with their code: thrown, responded and plain', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    svc.handle('thrown', () => {
      throw new RpcError('PR_NOT_FOUND', 'no such PR', { details: { pr: 7 } });
    });
    svc.handle('responded', async (_input, ctx) => {
      await ctx.respond({ ok: false, error: { code: 'QUOTA', message: 'over quota', retriable: true } });
    });
    svc.handle('plain', () => {
      throw new Error('boom');
    });
    const thrown = await caller.requestAgent({ to: 'svc', capability: 'thrown', payload: null });
    expect(thrown.status).toBe('error');
    expect(thrown.error).toBeInstanceOf(RpcError);
    expect(thrown.error).toMatchObject({ code: 'PR_NOT_FOUND', retriable: false, details: { pr: 7 } });
    const responded = await caller.requestAgent({ to: 'svc', capability: 'responded', payload: null });
    expect(responded.error).toMatchObject({ code: 'QUOTA', retriable: true });
    const plain = await caller.requestAgent({ to: 'svc', capability: 'plain', payload: null });
    expect(plain.error?.code).toBe('EAGENTRPC_HANDLER_FAILED');
    expect(plain.error?.stack).not.toContain('svc');
    expect(JSON.stringify(plain.error?.toWire())).not.toContain('at ');
  });

  it('requestAgent - times out with EAGENTRPC_TIMEOUT; the late response is dead-lettered on the caller', async () => {
    const caller = await fleet.node('caller');
    const slow = await fleet.node('slow');
    const release = gate();
    slow.handle('wait', async () => {
      await release.promise;
      return 'late';
    });
    const result = await caller.requestAgent({ to: 'slow', capability: 'wait', payload: null, timeoutMs: 30 });
    expect(result.status).toBe('timeout');
    expect(result.error?.code).toBe('EAGENTRPC_TIMEOUT');
    release.open();
    await until(async () => (await caller.dlq.list()).length === 1);
    const [record] = await caller.dlq.list();
    expect(record).toMatchObject({ kind: 'unmatched-response', reason: 'no-pending-call', agentId: 'caller' });
    expect(record!.envelope?.correlationId).toBe(result.correlationId);
  });

  it('requestAgent - timeoutMs is clamped to [1, 600000] and written as the deadline', async () => {
    const now = 1_800_000_000_000;
    const caller = await fleet.node('caller', { clock: { now: () => now } });
    await fleet.node('target');
    const raw = await fleet.raw();
    const seen = new Collector({ autoAck: true });
    // Watches the target's request topic next to the target itself.
    await raw.subscribe('agents.target.requests', seen.handler);
    for (const timeoutMs of [10 ** 9, -5]) {
      void caller.requestAgent({ to: 'target', capability: 'none', payload: null, timeoutMs });
    }
    const deadlines = (await seen.waitFor(2)).map((d) => {
      const decoded = decodeEnvelope(d.body);
      return decoded.ok ? decoded.envelope.deadline : undefined;
    });
    expect(deadlines.sort()).toEqual([now + 1, now + 600_000]);
  });

  it('requestAgent - caller mistakes throw TypeError naming the option and send nothing', async () => {
    const caller = await fleet.node('caller');
    await expect(caller.requestAgent({ to: '', capability: 'x', payload: null })).rejects.toThrow(TypeError);
    await expect(caller.requestAgent({ to: 'bad id!', capability: 'x', payload: null })).rejects.toThrow(TypeError);
    await expect(caller.requestAgent({ to: 'a', capability: '', payload: null })).rejects.toThrow(/capability/);
    await expect(caller.requestAgent({ to: 'a', capability: 'x', payload: null, mode: 'later' as never })).rejects.toThrow(/mode/);
    await expect(caller.requestAgent({ to: 'a', capability: 'x', payload: null, timeoutMs: 'soon' as never })).rejects.toThrow(/timeoutMs/);
  });

  it('requestAgent - an unknown peer is EAGENTRPC_NO_PEER, a peer on an unloaded transport EAGENTRPC_NO_TRANSPORT', async () => {
    const caller = await fleet.node('caller');
    fleet.peers.add({ id: 'agent://far', routes: [{ kind: 'nats' }, { kind: 'kafka' }] });
    const unknown = await caller.requestAgent({ to: 'nobody', capability: 'x', payload: null });
    expect(unknown).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_NO_PEER' } });
    const far = await caller.requestAgent({ to: 'far', capability: 'x', payload: null });
    expect(far).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_NO_TRANSPORT', details: { kinds: ['nats', 'kafka'] } } });
  });

  it('requestAgent - the pending capacity refuses new calls as busy without disturbing calls in flight', async () => {
    const caller = await fleet.node('caller', { limits: { pendingCapacity: 2 } });
    const svc = await fleet.node('svc');
    const release = gate();
    let received = 0;
    svc.handle('hold', async (input) => {
      received++;
      await release.promise;
      return input;
    });
    const first = caller.requestAgent({ to: 'svc', capability: 'hold', payload: 1 });
    const second = caller.requestAgent({ to: 'svc', capability: 'hold', payload: 2 });
    const third = await caller.requestAgent({ to: 'svc', capability: 'hold', payload: 3 });
    expect(third).toMatchObject({ status: 'busy', error: { code: 'EAGENTRPC_BUSY', retriable: true } });
    expect(third.messageId).toBeUndefined();
    await until(() => received === 2);
    release.open();
    expect((await first).response).toBe(1);
    expect((await second).response).toBe(2);
    expect(received).toBe(2);
  });

  it('requestAgent - close() settles waiting calls as abandoned', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const release = gate();
    let started = false;
    svc.handle('hold', async () => {
      started = true;
      await release.promise;
    });
    const pending = caller.requestAgent({ to: 'svc', capability: 'hold', payload: null });
    await until(() => started);
    await caller.close();
    expect(await pending).toMatchObject({ status: 'abandoned', error: { code: 'EAGENTRPC_ABANDONED' } });
    release.open();
  });

  it('requestAgent - aborting the signal settles the call as abandoned', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const release = gate();
    svc.handle('hold', () => release.promise);
    const controller = new AbortController();
    const pending = caller.requestAgent({ to: 'svc', capability: 'hold', payload: null, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ status: 'abandoned', error: { code: 'EAGENTRPC_ABANDONED', details: { cancelled: true } } });
    release.open();
  });
});

describe('requestAgent - retry', () => {
  it('requestAgent - a lost attempt is retried with the same messageId; the handler runs once', async () => {
    const retriesSeen: string[] = [];
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { limits: { retryDelayMs: 5 }, metrics: { duplicateSkipped: (capability) => retriesSeen.push(capability) } });
    const release = gate();
    const seen: string[] = [];
    svc.handle('slow-once', async (_input, ctx) => {
      seen.push(ctx.envelope.messageId);
      await release.promise;
      return 'answered';
    });
    const pending = caller.requestAgent({
      to: 'svc',
      capability: 'slow-once',
      payload: null,
      timeoutMs: 10_000,
      retry: { attempts: 200, attemptTimeoutMs: 30, backoffMs: 1 },
    });
    // The first attempt times out while the handler still runs; its retry reaches the svc's dedupe.
    await until(() => retriesSeen.length > 0);
    release.open();
    const result = await pending;
    expect(result).toMatchObject({ status: 'ok', response: 'answered' });
    expect(seen).toEqual([result.messageId]);
    expect(await caller.dlq.list()).toEqual([]);
  });

  it('requestAgent - an answer arriving while a retry waits for its turn settles the call, not the DLQ', async () => {
    const retrying = gate();
    const logger: Logger = {
      ...silentLogger,
      isLevelEnabled: () => true,
      debug: (_fields, message) => (message.startsWith('retrying call') ? retrying.open() : undefined),
      child: () => logger,
    };
    const caller = await fleet.node('caller', { logger });
    const svc = await fleet.node('svc');
    const release = gate();
    let runs = 0;
    svc.handle('slow-once', async () => {
      runs += 1;
      await release.promise;
      return 'answered';
    });
    // The first attempt times out; during the long pause before the retry, the answer comes.
    const pending = caller.requestAgent({ to: 'svc', capability: 'slow-once', payload: null, timeoutMs: 60_000, retry: { attempts: 2, attemptTimeoutMs: 30, backoffMs: 30_000 } });
    await retrying.promise;
    release.open();
    const result = await pending;
    expect(result).toMatchObject({ status: 'ok', response: 'answered' });
    expect(runs).toBe(1);
    expect(await caller.dlq.list()).toEqual([]);
  });

  it('requestAgent - retry is refused for non-sync modes and bad attempt counts', async () => {
    const caller = await fleet.node('caller');
    await expect(caller.requestAgent({ to: 'a', capability: 'x', payload: null, mode: 'async', retry: { attempts: 2 } })).rejects.toThrow(TypeError);
    await expect(caller.requestAgent({ to: 'a', capability: 'x', payload: null, retry: { attempts: 0 } })).rejects.toThrow(RangeError);
  });
});

describe('handler logs', () => {
  /** A logger that keeps each line with the bindings of the child it was written through. */
  function capturing(lines: Array<Record<string, unknown>>, bindings: Record<string, unknown> = {}): Logger {
    const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ ...bindings, ...fields, level, msg });
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), isLevelEnabled: () => true, child: (more) => capturing(lines, { ...bindings, ...more }) };
  }

  it('handler logs - every line a handler writes through ctx.logger carries the request and its trace id', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc', { logger: capturing(lines) });
    svc.handle('work', (_input, ctx) => {
      ctx.logger.info({ step: 1 }, 'working');
      const { logger } = ctx;
      logger.warn({ step: 2 }, 'still working');
      return 'done';
    });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const result = await caller.requestAgent({ to: 'svc', capability: 'work', payload: null, headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(result.status).toBe('ok');
    const written = lines.filter((line) => line['msg'] === 'working' || line['msg'] === 'still working');
    expect(written).toHaveLength(2);
    for (const line of written) {
      expect(line).toMatchObject({ correlationId: result.correlationId, messageId: result.messageId, capability: 'work', from: 'agent://caller', traceId });
    }
  });
});

describe('requestAgent - replicas', () => {
  it('requestAgent - replicas of one caller each receive only the replies to their own calls', async () => {
    const first = await fleet.node('caller', { instanceId: 'replica-1' });
    const second = await fleet.node('caller', { instanceId: 'replica-2' });
    const svc = await fleet.node('svc');
    svc.handle('who', (_input, ctx) => ctx.envelope.replyTo);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).requestAgent({ to: 'svc', capability: 'who', payload: i })),
    );
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(new Set(results.map((r) => r.response))).toEqual(
      new Set(['memory://agents.caller.responses.replica-1', 'memory://agents.caller.responses.replica-2']),
    );
    expect([...(await first.dlq.list()), ...(await second.dlq.list())]).toEqual([]);
  });

  it('requestAgent - replicas share the request inbox: each request is handled once', async () => {
    const caller = await fleet.node('caller');
    const replicas = [await fleet.node('svc', { instanceId: 'a' }), await fleet.node('svc', { instanceId: 'b' })];
    const handledBy: string[] = [];
    for (const [i, node] of replicas.entries()) {
      node.handle('work', (n: number) => {
        handledBy.push(`${i}:${n}`);
        return n;
      });
    }
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => caller.requestAgent({ to: 'svc', capability: 'work', payload: n })));
    expect(results.map((r) => r.response)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(handledBy).toHaveLength(20);
    expect(new Set(handledBy.map((h) => h.split(':')[0])).size).toBe(2);
  });
});

describe('requestAgent - async and fire-and-forget modes', () => {
  it('requestAgent - async returns at once; the response arrives as agent.rpc.response', async () => {
    const completed: string[] = [];
    const caller = await fleet.node('caller', { metrics: { callCompleted: (_capability, status) => completed.push(status) } });
    const svc = await fleet.node('svc');
    const release = gate();
    svc.handle('double', async (n: number) => {
      await release.promise;
      return n * 2;
    });
    const responses: Array<LocalBusEvents['agent.rpc.response']> = [];
    caller.on('agent.rpc.response', (event) => responses.push(event));
    const result = await caller.requestAgent({ to: 'svc', capability: 'double', payload: 21, mode: 'async' });
    expect(result.status).toBe('ok');
    expect(result.response).toBeUndefined();
    expect(responses).toHaveLength(0);
    release.open();
    await until(() => responses.length === 1);
    expect(responses[0]).toMatchObject({ status: 'ok', response: 42, correlationId: result.correlationId, requestId: result.messageId, capability: 'double' });
    // Counted once, when the outcome arrived — not also when the call was accepted.
    expect(completed).toEqual(['ok']);
  });

  it('requestAgent - an async call that times out is reported on the bus', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const release = gate();
    svc.handle('hold', () => release.promise);
    const responses: Array<LocalBusEvents['agent.rpc.response']> = [];
    caller.on('agent.rpc.response', (event) => responses.push(event));
    const result = await caller.requestAgent({ to: 'svc', capability: 'hold', payload: null, mode: 'async', timeoutMs: 20 });
    await until(() => responses.length === 1);
    expect(responses[0]).toMatchObject({ status: 'timeout', requestId: result.messageId });
    release.open();
  });

  it('requestAgent - fire-and-forget sends an event without replyTo; it surfaces on the receiver bus', async () => {
    const caller = await fleet.node('caller');
    const svc = await fleet.node('svc');
    const events: Array<LocalBusEvents['agent.rpc.event']> = [];
    svc.on('agent.rpc.event', (event) => events.push(event));
    const result = await caller.requestAgent({ to: 'svc', capability: 'notify', payload: { n: 1 }, mode: 'fire-and-forget' });
    expect(result.status).toBe('ok');
    expect(caller.pendingCalls).toBe(0);
    await until(() => events.length === 1);
    const envelope = events[0]!.envelope;
    expect(envelope).toMatchObject({ kind: 'event', capability: 'notify', payload: { n: 1 }, from: 'agent://caller' });
    expect(envelope.replyTo).toBeUndefined();
  });
});

describe('requestAgent - permissions', () => {
  it('requestAgent - deny wins over allow; a denied call sends nothing', async () => {
    const caller = await fleet.node('caller', {
      permissions: { allow: ['RequestAgent:agent://svc/*'], deny: ['RequestAgent:agent://svc/admin-*'] },
    });
    const svc = await fleet.node('svc');
    const seen: string[] = [];
    svc.handle('read', () => seen.push('read'));
    svc.handle('admin-drop', () => seen.push('admin-drop'));
    await fleet.node('other');
    const denied = await caller.requestAgent({ to: 'svc', capability: 'admin-drop', payload: null });
    expect(denied).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_PERMISSION_DENIED' } });
    expect(denied.messageId).toBeUndefined();
    const notAllowed = await caller.requestAgent({ to: 'other', capability: 'read', payload: null });
    expect(notAllowed.error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');
    expect((await caller.requestAgent({ to: 'svc', capability: 'read', payload: null })).status).toBe('ok');
    expect(seen).toEqual(['read']);
  });
});
