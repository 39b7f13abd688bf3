import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDlqSink } from '../../src/dlq/memory-sink.js';
import type { AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { Gateway, GatewayCall, GatewayPort } from '../../src/gateway.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { memoryTransport } from '../../transports/memory/index.js';
import { MemoryBus } from '../../transports/memory/memory-bus.js';

/**
 * The smallest gateway: it carries nothing out, tells the test what it was given, and
 * answers through the node's port whatever the test makes it answer.
 */
function testGateway(): Gateway & { port(): GatewayPort; sent: Promise<GatewayCall> } {
  let port: GatewayPort | undefined;
  let sent!: (call: GatewayCall) => void;
  return {
    kind: 'gw',
    sent: new Promise<GatewayCall>((resolve) => (sent = resolve)),
    open: async (given) => void (port = given),
    send: async (call) => sent(call),
    abandon: () => undefined,
    close: async () => undefined,
    port: () => port!,
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('gateway answers - the node takes a gateway’s own answers only for the calls it carried', () => {
  it('gateway answers - a gateway answering a call that went out over a transport is refused with not-the-gateway', async () => {
    const bus = new MemoryBus();
    const gateway = testGateway();
    const dlq = new MemoryDlqSink();
    const node = new AgentNode({ id: 'front', transports: [memoryTransport({ bus })], gateways: [gateway], peers: [{ id: 'worker', routes: [{ kind: 'memory' }] }, { id: 'foreign', routes: [{ kind: 'gw' }] }], dlq });
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
    gateway.port().answer(request, { ok: true, data: 'forged' });
    await expect.poll(async () => (await dlq.list({ kind: 'auth-rejected' })).map((r) => r.reason)).toEqual(['not-the-gateway']);
    release('real');
    expect((await call).response).toBe('real');
  });

  it('gateway answers - a gateway answering a call it carried settles it without a signature; progress reaches the caller first', async () => {
    const gateway = testGateway();
    const node = new AgentNode({ id: 'front', transports: [], gateways: [gateway], peers: [{ id: 'foreign', routes: [{ kind: 'gw', requestsTopic: 'https://peer.example/a2a' }] }] });
    await node.start();
    closers.push(() => node.close());
    const progress: unknown[] = [];
    const call = node.requestAgent({ to: 'foreign', capability: 'ask', payload: 'q', onProgress: (data) => progress.push(data) });
    const { address, envelope } = await gateway.sent;
    expect(address).toBe('https://peer.example/a2a');
    expect(envelope.replyTo).toMatch(/^gw:\/\//);
    gateway.port().answer(envelope, { ok: true, progress: true, data: { state: 'working' } });
    gateway.port().answer(envelope, { ok: true, data: 'a' });
    expect((await call).response).toBe('a');
    expect(progress).toEqual([{ state: 'working' }]);
  });

  it('gateway answers - a call the gateway could not carry settles with its error', async () => {
    const gateway = testGateway();
    const node = new AgentNode({ id: 'front', transports: [], gateways: [gateway], peers: [{ id: 'foreign', routes: [{ kind: 'gw' }] }] });
    await node.start();
    closers.push(() => node.close());
    const call = node.requestAgent({ to: 'foreign', capability: 'ask', payload: 'q' });
    const sent = await gateway.sent;
    gateway.port().failed(sent, new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', 'peer gone'));
    expect((await call).error?.code).toBe('EAGENTRPC_REMOTE_UNREACHABLE');
  });

  it('gateway answers - an event the gateway could not carry is dead-lettered as remote-failed, and a requeue hands it to the gateway again', async () => {
    const calls: GatewayCall[] = [];
    const gateway = { ...testGateway(), send: async (call: GatewayCall) => void calls.push(call) };
    const dlq = new MemoryDlqSink();
    const node = new AgentNode({ id: 'front', transports: [], gateways: [gateway], peers: [{ id: 'foreign', routes: [{ kind: 'gw', requestsTopic: 'peer-1' }] }], dlq });
    await node.start();
    closers.push(() => node.close());
    expect((await node.requestAgent({ to: 'foreign', capability: 'note', payload: 'n', mode: 'fire-and-forget' })).status).toBe('ok');
    gateway.port().failed(calls[0]!, new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', 'peer gone'));
    await expect.poll(async () => (await dlq.list()).map((r) => [r.kind, r.reason, r.transport, r.coordinates.topic])).toEqual([['remote-failed', 'EAGENTRPC_REMOTE_UNREACHABLE', 'gw', 'peer-1']]);
    const [record] = await dlq.list();
    expect(await node.requeueDlq(record!.id)).toEqual({ transport: 'gw', topic: 'peer-1' });
    expect(calls.map((call) => [call.address, call.envelope.messageId])).toEqual([
      ['peer-1', calls[0]!.envelope.messageId],
      ['peer-1', calls[0]!.envelope.messageId],
    ]);
  });
});
