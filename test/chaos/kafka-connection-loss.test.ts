import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { gate } from '../../src/testing/wait.js';
import { startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import type { RpcTransport } from '../../src/transport.js';
import { kafkaTransport } from '../../transports/kafka/index.js';

/** The real transport, telling when the broker has acknowledged a request (its publish resolved). */
function observed(transport: RpcTransport, acknowledged: () => void): RpcTransport {
  return new Proxy(transport, {
    get(target, name) {
      if (name === 'publish') {
        return async (...args: Parameters<RpcTransport['publish']>) => {
          await target.publish(...args);
          if (args[0].endsWith('.requests')) acknowledged();
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// A call waiting on Kafka when its broker dies for good: a broker of this file's own.
let server: KafkaServerHandle;
const nodes: AgentNode[] = [];

beforeAll(async () => {
  server = await startKafkaServer();
}, 180_000);
afterAll(async () => {
  await server.restart();
  for (const node of nodes) await node.close();
  await server.stop();
}, 120_000);

describe('kafka - connection loss', () => {
  it('kafka - a call whose broker stays gone past the grace ends abandoned (connection-lost), not at its timeout', async () => {
    const scope = randomUUID().slice(0, 8);
    const entered = gate();
    const acknowledged = gate();
    const release = gate<string>();
    const target = new AgentNode({ id: `target-${scope}`, transports: [kafkaTransport({ brokers: server.brokers })], drainTimeoutMs: 1_000 });
    target.handle('hold', async () => {
      entered.open();
      return release.promise;
    });
    const caller = new AgentNode({
      id: `caller-${scope}`,
      transports: [observed(kafkaTransport({ brokers: server.brokers }), acknowledged.open)],
      limits: { connectionLossGraceMs: 1_000 },
      peers: [{ id: `target-${scope}`, routes: [{ kind: 'kafka' }] }],
    });
    nodes.push(target, caller);
    await target.start();
    await caller.start();
    // Far longer than kafkajs takes to give a consumer up and restart it: a timeout means the loss went unseen.
    const call = caller.requestAgent({ to: `target-${scope}`, capability: 'hold', payload: null, timeoutMs: 150_000 });
    // Killed only once the request is both handled and acknowledged: a publish still waiting
    // for its acknowledgement would fail the call on its own (EAGENTRPC_PUBLISH_FAILED).
    await Promise.all([entered.promise, acknowledged.promise]);
    await server.kill();
    const result = await call;
    release.open('too late');
    expect(result.status).toBe('abandoned');
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { reason: 'connection-lost', transport: 'kafka' } });
  }, 200_000);
});
