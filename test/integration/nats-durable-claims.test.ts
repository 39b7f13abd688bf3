import { afterAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import type { RpcTransport } from '../../src/transport.js';
import { natsTransport } from '../../transports/nats/index.js';
import { AnswerTally } from '../support/answer-tally.js';
import { gate, until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';

const nats = await runNats();
const nodes: AgentNode[] = [];
afterAll(async () => {
  for (const node of nodes.reverse()) await node.close();
});

/** A node on this file's JetStream (each test its own agent ids), closed after the file. */
async function node(id: string, transport: RpcTransport, options: Omit<ConstructorParameters<typeof AgentNode>[0], 'id' | 'transports' | 'peers'> = {}): Promise<AgentNode> {
  const peers = new PeerTable(['slow', 'forgetful'].map((peer) => ({ id: peer, routes: [{ kind: 'nats' as const }] })));
  const created = new AgentNode({ id, transports: [transport], peers, ...options });
  nodes.push(created);
  return created;
}

/** Acks of ordinary deliveries are lost, as when a process dies after answering; the exhausted hand-over keeps its ack. */
function losingAcks(transport: RpcTransport): RpcTransport {
  return new Proxy(transport, {
    get(target, property, receiver) {
      if (property !== 'subscribe') return Reflect.get(target, property, receiver);
      const subscribe: RpcTransport['subscribe'] = (topic, handler, options) =>
        target.subscribe(topic, (d) => handler(d.exhausted ? d : { ...d, ack: () => undefined }), options);
      return subscribe;
    },
  });
}

describe('nats - durable inbox claims', () => {
  it('nats - a request whose handler outlives ack_wait is deferred, not redelivered to death: one run, one answer, no DLQ', async () => {
    const durable = { ackWaitMs: 300, maxDeliver: 2 };
    let deferred = 0;
    const svc = await node('slow', natsTransport({ ...nats.options, durable }), { limits: { retryDelayMs: 20 }, metrics: { duplicateSkipped: () => void deferred++ } });
    const tally = new AnswerTally();
    const caller = await node('slow-caller', tally.wrap(natsTransport({ ...nats.options, durable })));
    const release = gate();
    let runs = 0;
    svc.handle('hang', async () => {
      runs++;
      await release.promise;
      return 'finally';
    });
    await svc.start();
    await caller.start();
    const result = caller.requestAgent({ to: 'slow', capability: 'hang', payload: null, timeoutMs: 30_000 });
    // JetStream redelivered it after ack_wait and this very process, still running it,
    // looked at it again and again: more often than max_deliver would have allowed.
    await until(() => deferred > durable.maxDeliver, 20_000);
    release.open();
    const answered = await result;
    expect(answered).toMatchObject({ status: 'ok', response: 'finally' });
    expect(runs).toBe(1);
    expect(await svc.dlq.list()).toEqual([]);
    expect(tally.distinct(answered.messageId!).size).toBe(1);
  }, 40_000);

  it('nats - a request answered but never acked is answered from the store when JetStream gives up on it, not refused: one answer, no DLQ', async () => {
    const durable = { ackWaitMs: 200, maxDeliver: 2 };
    const svc = await node('forgetful', losingAcks(natsTransport({ ...nats.options, durable })));
    const tally = new AnswerTally();
    const caller = await node('forgetful-caller', tally.wrap(natsTransport({ ...nats.options, durable })));
    let runs = 0;
    svc.handle('once', () => ++runs);
    await svc.start();
    await caller.start();
    const result = await caller.requestAgent({ to: 'forgetful', capability: 'once', payload: null, timeoutMs: 10_000 });
    expect(result).toMatchObject({ status: 'ok', response: 1 });
    // Each redelivery, and the exhausted hand-over after them, is answered with the stored reply.
    await until(() => tally.byRequest.get(result.messageId!)?.length === durable.maxDeliver + 1, 15_000);
    expect(tally.distinct(result.messageId!).size).toBe(1);
    expect(tally.byRequest.get(result.messageId!)!.every((answer) => answer.ok)).toBe(true);
    expect(runs).toBe(1);
    expect(await svc.dlq.list()).toEqual([]);
  }, 30_000);
});
