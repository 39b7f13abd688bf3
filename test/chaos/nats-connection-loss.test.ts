import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/observability/prometheus-metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { gate, until } from '../../src/testing/wait.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';

// Calls waiting on a NATS connection that drops: a server of this file's own, killed.
let server: NatsServerHandle;
const nodes: AgentNode[] = [];

beforeAll(async () => {
  server = await startNatsServer();
}, 60_000);
afterAll(async () => {
  await server.restart();
  for (const node of nodes) await node.close();
  await server.stop();
});

/** A caller and a target whose handler holds every call until released. */
async function pair(graceMs: number | undefined) {
  const scope = randomUUID().slice(0, 8);
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const transport = (agent: string) => natsTransport({ servers: server.url, subjectPrefix: `${scope}.`, metrics: metrics.forAgent(agent) });
  const entered = gate();
  const release = gate<string>();
  const target = new AgentNode({ id: 'target', transports: [transport('target')], drainTimeoutMs: 1_000 });
  target.handle('hold', async () => {
    entered.open();
    return release.promise;
  });
  const caller = new AgentNode({ id: 'caller', transports: [transport('caller')], limits: graceMs === undefined ? {} : { connectionLossGraceMs: graceMs }, peers: [{ id: 'target', routes: [{ kind: 'nats' }] }] });
  nodes.push(target, caller);
  await target.start();
  await caller.start();
  const reconnects = async (agent: string): Promise<number> => {
    const metric = await metrics.registry.getSingleMetric('agent_rpc_transport_reconnects_total')?.get();
    return metric?.values.find((v) => v.labels['agent'] === agent)?.value ?? 0;
  };
  return { caller, entered, release, reconnects };
}

/**
 * A call held at the target when the server is killed and left down: it must end abandoned
 * (connection-lost), not timed out. `whileLost` runs before the server comes back.
 */
async function expectAbandonedWhileLost(graceMs: number | undefined, timeoutMs: number, whileLost?: (caller: AgentNode) => Promise<void>): Promise<void> {
  const { caller, entered, release } = await pair(graceMs);
  const call = caller.requestAgent({ to: 'target', capability: 'hold', payload: null, timeoutMs });
  await entered.promise;
  await server.kill();
  try {
    const result = await call;
    release.open('too late');
    expect(result.status).toBe('abandoned');
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { reason: 'connection-lost', transport: 'nats' } });
    await whileLost?.(caller);
  } finally {
    await server.restart();
  }
}

describe('nats - connection loss', () => {
  it('nats - a call whose connection stays lost past the grace ends abandoned (connection-lost), not at its timeout', async () => {
    await expectAbandonedWhileLost(300, 30_000, async (caller) => {
      // While it stays lost, a new call on it is refused the same way at once.
      const next = await caller.requestAgent({ to: 'target', capability: 'hold', payload: null, timeoutMs: 30_000 });
      expect(next.error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { reason: 'connection-lost' } });
    });
  }, 60_000);

  it('nats - without a grace, a call waits through the outage and, still lost at its deadline, ends abandoned (connection-lost), not timed out', async () => {
    await expectAbandonedWhileLost(undefined, 2_000);
  }, 60_000);

  it('nats - a connection back within the grace leaves the call waiting, and it completes', async () => {
    const { caller, entered, release, reconnects } = await pair(30_000);
    const call = caller.requestAgent({ to: 'target', capability: 'hold', payload: null, timeoutMs: 50_000 });
    await entered.promise;
    await server.kill();
    await server.restart();
    // Both ends back on the server (the caller's reply subscription included) before the answer is sent.
    await until(async () => (await reconnects('caller')) === 1 && (await reconnects('target')) === 1, 20_000);
    release.open('done');
    const result = await call;
    expect(result.status).toBe('ok');
    expect(result.response).toBe('done');
  }, 60_000);
});
