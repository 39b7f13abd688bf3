import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcError } from '../../src/errors.js';
import type { RpcMetrics } from '../../src/observability/metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { natsTransport } from '../../transports/nats/index.js';
import { runNats } from '../support/nats-target.js';

const nats = await runNats();
const nodes: AgentNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

/** What the worker's inbox reports: handlers ended, deliveries handed back. */
function counting(): RpcMetrics & { completed: number; redeliveries: number } {
  const counts = { completed: 0, redeliveries: 0 };
  return Object.assign(counts, {
    handlerCompleted: () => void counts.completed++,
    redeliveryRequested: () => void counts.redeliveries++,
  });
}

describe('cancellation over NATS - a cancelled request is never delivered again', () => {
  const cases = [
    { name: 'core', durable: false, maxDeliveryAttempts: 3 },
    { name: 'JetStream', durable: true, maxDeliveryAttempts: 3 },
    // Its last attempt: a retriable error would be dead-lettered as handler-failed.
    { name: 'core, last attempt', durable: false, maxDeliveryAttempts: 1 },
  ];
  for (const { name, durable, maxDeliveryAttempts } of cases) {
    it(`cancellation - the caller's $cancel over NATS ends the handler, and its rethrown EAGENTRPC_ABANDONED is neither redelivered nor dead-lettered (${name})`, async () => {
      const workerId = `worker-${randomUUID().slice(0, 8)}`;
      const options = { ...nats.options, ...(durable ? { durable: { ackWaitMs: 5_000 } } : {}) };
      const metrics = counting();
      const worker = new AgentNode({ id: workerId, transports: [natsTransport(options)], metrics, limits: { retryDelayMs: 10, maxDeliveryAttempts } });
      const caller = new AgentNode({ id: `caller-${randomUUID().slice(0, 8)}`, transports: [natsTransport(options)], peers: [{ id: workerId, routes: [{ kind: 'nats' }] }] });
      nodes.push(caller, worker);
      const attempts: number[] = [];
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      worker.handle('long', async (_input, ctx) => {
        attempts.push(ctx.attempt);
        const aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        started();
        await aborted;
        // The idiomatic handler: pass the abort on.
        throw ctx.signal.reason as RpcError;
      });
      await worker.start();
      await caller.start();
      const controller = new AbortController();
      const call = caller.requestAgent({ to: workerId, capability: 'long', payload: {}, signal: controller.signal, timeoutMs: 30_000 });
      await running;
      controller.abort();
      expect((await call).status).toBe('abandoned');
      // The handler has ended (through the caller's $cancel) and its request is settled.
      await expect.poll(() => metrics.completed, { timeout: 10_000 }).toBe(1);
      expect(metrics.redeliveries).toBe(0);
      expect(attempts).toEqual([1]);
      expect(await worker.dlq.list()).toEqual([]);
    });
  }
});
