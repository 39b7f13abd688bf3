import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentRpcEnvelope } from '../../src/envelope/index.js';
import { FLOW_HEADER } from '../../src/guard/flow-state.js';
import type { GuardStore } from '../../src/guard/guard-store.js';
import { RunawayGuard, STORE_TIMEOUT_MS } from '../../src/guard/runaway-guard.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('guard - shared flow store failures', () => {
  it('guard - a flow store that does not answer in time is EAGENTRPC_FLOW_STORE_UNAVAILABLE, and the call is admitted', async () => {
    vi.useFakeTimers();
    const silent: GuardStore = { record: () => new Promise(() => {}), close: async () => {} };
    const errors: unknown[] = [];
    const guard = new RunawayGuard({}, silent, (error) => errors.push(error));
    const header = guard.startFlow('agent://b', 0).header;
    const envelope = {
      version: 1,
      kind: 'request',
      messageId: 'm-2',
      correlationId: 'c-1',
      causedBy: 'm-1',
      from: 'agent://a',
      to: 'agent://b',
      capability: 'x',
      headers: { [FLOW_HEADER]: header },
      payload: null,
    } as AgentRpcEnvelope;
    const admitted = guard.admitShared(envelope, 0);
    await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS);
    expect(await admitted).toBeUndefined();
    expect(errors).toEqual([expect.objectContaining({ code: 'EAGENTRPC_FLOW_STORE_UNAVAILABLE', retriable: true })]);
  });
});
