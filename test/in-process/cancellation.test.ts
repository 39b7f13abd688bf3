import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RpcError } from '../../src/errors.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

/** A handler that waits for its signal and reports the reason's code. */
function waitForAbort(reasons: string[]): (input: unknown, ctx: { signal: AbortSignal }) => Promise<string> {
  return (_input, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        reasons.push((ctx.signal.reason as RpcError).code);
        resolve('stopped');
      });
    });
}

describe('cancellation - a handler hears that nobody waits any more', () => {
  it('cancellation - the caller aborting its call aborts the handler’s signal with EAGENTRPC_ABANDONED', async () => {
    const caller = await fleet.node('caller');
    const worker = await fleet.node('worker');
    const reasons: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    worker.handle('long', (input, ctx) => {
      started();
      return waitForAbort(reasons)(input, ctx);
    });
    const controller = new AbortController();
    const call = caller.requestAgent({ to: 'worker', capability: 'long', payload: {}, signal: controller.signal, timeoutMs: 60_000 });
    await running;
    controller.abort();
    expect((await call).status).toBe('abandoned');
    await expect.poll(() => reasons).toEqual(['EAGENTRPC_ABANDONED']);
  });

  it('cancellation - the request deadline aborts the signal with EAGENTRPC_TIMEOUT', async () => {
    const caller = await fleet.node('caller');
    const worker = await fleet.node('worker');
    const reasons: string[] = [];
    worker.handle('long', waitForAbort(reasons));
    // The caller's own timer and the handler's signal fire at the same deadline: either may answer first.
    await caller.requestAgent({ to: 'worker', capability: 'long', payload: {}, timeoutMs: 200 });
    await expect.poll(() => reasons).toEqual(['EAGENTRPC_TIMEOUT']);
  });

  it('cancellation - a $cancel from another agent than the caller is ignored; the caller’s own is obeyed', async () => {
    const caller = await fleet.node('caller');
    const stranger = await fleet.node('stranger');
    const worker = await fleet.node('worker');
    let started!: (requestId: string) => void;
    const running = new Promise<string>((resolve) => (started = resolve));
    worker.handle('long', (_input, ctx) => {
      started(ctx.envelope.messageId);
      return new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve((ctx.signal.reason as RpcError).message)));
    });
    const call = caller.requestAgent({ to: 'worker', capability: 'long', payload: {}, timeoutMs: 60_000 });
    const requestId = await running;
    // In order through the worker's inbox: the stranger's cancel first, then the caller's.
    await stranger.requestAgent({ to: 'worker', capability: '$cancel', payload: { requestId }, mode: 'fire-and-forget' });
    await caller.requestAgent({ to: 'worker', capability: '$cancel', payload: { requestId }, mode: 'fire-and-forget' });
    expect((await call).response).toBe('cancelled: by agent://caller');
  });
});
