import { describe, expect, it } from 'vitest';
import { PendingRegistry, type PendingOutcome } from '../../src/rpc/pending-registry.js';

function call(requestId: string, outcomes: PendingOutcome[], deadline = Date.now() + 60_000) {
  return { requestId, correlationId: 'flow', capability: 'cap', deadline, onProgress: undefined, onSettle: (o: PendingOutcome) => outcomes.push(o) };
}

describe('pending registry', () => {
  it('pending registry - keys by request, so two calls of one flow settle separately', () => {
    const registry = new PendingRegistry({ now: Date.now });
    const a: PendingOutcome[] = [];
    const b: PendingOutcome[] = [];
    registry.register(call('r1', a));
    registry.register(call('r2', b));
    expect(registry.settle('r2', { ok: true, data: 2 })).toBe(true);
    expect(registry.settle('r1', { ok: true, data: 1 })).toBe(true);
    expect(a).toEqual([{ ok: true, data: 1 }]);
    expect(b).toEqual([{ ok: true, data: 2 }]);
    registry.close();
  });

  it('pending registry - settles once; later and unknown responses report false', () => {
    const registry = new PendingRegistry({ now: Date.now });
    const outcomes: PendingOutcome[] = [];
    registry.register(call('r1', outcomes));
    expect(registry.settle('r1', { ok: true, data: 1 })).toBe(true);
    expect(registry.settle('r1', { ok: true, data: 2 })).toBe(false);
    expect(registry.settle('nope', { ok: true, data: 3 })).toBe(false);
    expect(outcomes).toHaveLength(1);
  });

  it('pending registry - refuses past capacity with EAGENTRPC_BUSY and keeps the calls it has', () => {
    const registry = new PendingRegistry({ now: Date.now, capacity: 2 });
    const outcomes: PendingOutcome[] = [];
    expect(registry.register(call('r1', outcomes))).toBeUndefined();
    expect(registry.register(call('r2', outcomes))).toBeUndefined();
    expect(registry.register(call('r3', outcomes))?.code).toBe('EAGENTRPC_BUSY');
    expect(registry.size).toBe(2);
    registry.settle('r1', { ok: true, data: 1 });
    expect(registry.register(call('r3', outcomes))).toBeUndefined();
    registry.close();
  });

  it('pending registry - the deadline timer settles with EAGENTRPC_TIMEOUT', async () => {
    const registry = new PendingRegistry({ now: Date.now });
    const settled = new Promise<PendingOutcome>((resolve) => {
      registry.register({ ...call('r1', []), deadline: Date.now() + 5, onSettle: resolve });
    });
    const outcome = await settled;
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.code).toBe('EAGENTRPC_TIMEOUT');
    expect(registry.size).toBe(0);
  });

  it('pending registry - close settles every call as abandoned and refuses new ones', () => {
    const registry = new PendingRegistry({ now: Date.now });
    const outcomes: PendingOutcome[] = [];
    registry.register(call('r1', outcomes));
    registry.register(call('r2', outcomes));
    registry.close();
    expect(outcomes.map((o) => !o.ok && o.error.code)).toEqual(['EAGENTRPC_ABANDONED', 'EAGENTRPC_ABANDONED']);
    expect(registry.register(call('r3', outcomes))?.code).toBe('EAGENTRPC_ABANDONED');
  });

  it('pending registry - rejects a bad capacity with RangeError', () => {
    expect(() => new PendingRegistry({ now: Date.now, capacity: 0 })).toThrow(RangeError);
  });
});
