import { afterEach, describe, expect, it } from 'vitest';
import { createDelivery } from '../../src/delivery.js';
import { MemoryDlqSink } from '../../src/dlq/memory-sink.js';
import { encodeEnvelope, newMessageId, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import type { DeliveryHandler, RpcTransport, Subscription } from '../../src/transport.js';
import { memoryTransport } from '../../transports/memory/index.js';
import { MemoryBus } from '../../transports/memory/memory-bus.js';

/**
 * The smallest gateway transport: it carries nothing out and hands over whatever response
 * the test gives it, as a gateway that answers for a foreign peer would.
 */
function gatewayTransport(): RpcTransport & { answer(topic: string, response: AgentRpcEnvelope): void } {
  const subscribers = new Map<string, DeliveryHandler>();
  return {
    kind: 'gw',
    traits: { redelivery: false, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: false, gateway: true },
    connect: async () => undefined,
    publish: async () => undefined,
    subscribe: async (topic, handler): Promise<Subscription> => {
      subscribers.set(topic, handler);
      return { topic, close: async () => void subscribers.delete(topic) };
    },
    close: async () => undefined,
    answer(topic, response) {
      const body = encodeEnvelope(response);
      subscribers.get(topic)?.(createDelivery({ body, key: undefined, coordinates: { topic, deliveryId: response.messageId }, attempt: 1, onAck: () => undefined, onNack: () => undefined }));
    },
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('gateway responses - the inbox trusts a gateway only for the calls it carried', () => {
  it('gateway responses - a gateway answering a call that went out over another transport is refused with not-the-gateway', async () => {
    const bus = new MemoryBus();
    const gateway = gatewayTransport();
    const dlq = new MemoryDlqSink();
    const node = new AgentNode({ id: 'front', transports: [memoryTransport({ bus }), gateway], peers: [{ id: 'worker', routes: [{ kind: 'memory' }] }, { id: 'foreign', routes: [{ kind: 'gw' }] }], dlq });
    const worker = new AgentNode({ id: 'worker', transports: [memoryTransport({ bus })], peers: [{ id: 'front', routes: [{ kind: 'memory' }] }] });
    let seen!: (request: AgentRpcEnvelope) => void;
    const received = new Promise<AgentRpcEnvelope>((resolve) => (seen = resolve));
    let release!: (value: string) => void;
    worker.handle('work', (_input, ctx) => {
      seen(ctx.envelope);
      return new Promise<string>((resolve) => (release = resolve));
    });
    for (const n of [node, worker]) {
      await n.start();
      closers.push(() => n.close());
    }
    const call = node.requestAgent({ to: 'worker', capability: 'work', payload: null });
    const request = await received;
    const forged: AgentRpcEnvelope = { version: 1, kind: 'response', messageId: newMessageId(), correlationId: request.correlationId, causedBy: request.messageId, from: 'agent://worker', to: 'agent://front', capability: 'work', payload: { ok: true, data: 'forged' } };
    gateway.answer(request.replyTo!.replace('memory://', ''), forged);
    await expect.poll(async () => (await dlq.list({ kind: 'auth-rejected' })).map((r) => r.reason)).toEqual(['not-the-gateway']);
    release('real');
    expect((await call).response).toBe('real');
  });

  it('gateway responses - a gateway answering a call it carried settles it without a signature', async () => {
    const gateway = gatewayTransport();
    const node = new AgentNode({ id: 'front', transports: [gateway], peers: [{ id: 'foreign', routes: [{ kind: 'gw' }] }] });
    await node.start();
    closers.push(() => node.close());
    let published!: (body: Uint8Array) => void;
    const sent = new Promise<Uint8Array>((resolve) => (published = resolve));
    gateway.publish = async (_topic, message) => published(message.body);
    const call = node.requestAgent({ to: 'foreign', capability: 'ask', payload: 'q' });
    const request = JSON.parse(Buffer.from(await sent).toString('utf8')) as AgentRpcEnvelope;
    gateway.answer(request.replyTo!.replace('gw://', ''), { version: 1, kind: 'response', messageId: newMessageId(), correlationId: request.correlationId, causedBy: request.messageId, from: 'agent://foreign', to: 'agent://front', capability: 'ask', payload: { ok: true, data: 'a' } });
    expect((await call).response).toBe('a');
  });
});
