import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeEnvelope, peekEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { InboundReply } from '../../src/rpc/inbound-port.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

const body = (overrides: Parameters<typeof foreignRequest>[0] = {}): Uint8Array => encodeEnvelope(foreignRequest({ replyTo: 'http://sessions.s1', ...overrides }));

describe('inbound port', () => {
  it('inbound port - a request runs through the inbox; progress and the final reply come back with their payloads', async () => {
    const svc = await fleet.node('svc');
    svc.handle('work', async (input, ctx) => {
      await ctx.respond({ ok: true, data: 'halfway' }, { progress: true });
      return { echoed: input };
    });
    const replies: InboundReply[] = [];
    await svc.inbound.deliver({ body: body({ payload: { n: 1 } }), deliveryId: 's1', onReply: (reply) => replies.push(reply) });
    expect(replies.map((reply) => reply.payload)).toEqual([
      { ok: true, data: 'halfway', progress: true },
      { ok: true, data: { echoed: { n: 1 } } },
    ]);
    // The reply is the signed response envelope a broker would have carried.
    expect(peekEnvelope(replies[1]!.body)?.envelope).toMatchObject({ kind: 'response', from: 'agent://svc', to: 'agent://tester' });
  });

  it('inbound port - a retriable failure is delivered again by the port; a duplicate is answered from the stored reply', async () => {
    const svc = await fleet.node('svc', { limits: { retryDelayMs: 1 } });
    const attempts: number[] = [];
    svc.handle('work', (_input, ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt < 2) throw new RpcError('EAGENTRPC_TIMEOUT', 'downstream slow');
      return 'done';
    });
    const request = body();
    const first: InboundReply[] = [];
    await svc.inbound.deliver({ body: request, deliveryId: 's1', onReply: (reply) => first.push(reply) });
    expect(attempts).toEqual([1, 2]);
    expect(first.map((reply) => reply.payload)).toEqual([{ ok: true, data: 'done' }]);

    const again: InboundReply[] = [];
    await svc.inbound.deliver({ body: request, deliveryId: 's1', onReply: (reply) => again.push(reply) });
    expect(attempts).toEqual([1, 2]);
    expect(again.map((reply) => reply.payload)).toEqual([{ ok: true, data: 'done' }]);
  });

  it('inbound port - garbage ends in the DLQ as decode-failed, named as inbound; a refused request is answered with its code', async () => {
    const svc = await fleet.node('svc');
    await svc.inbound.deliver({ body: Buffer.from('{"version":1,"kind":"request","kind":"event"}'), deliveryId: 'g1' });
    expect(await svc.dlq.list()).toMatchObject([{ kind: 'decode-failed', reason: 'duplicate-key', transport: 'inbound', coordinates: { deliveryId: 'g1' } }]);

    const replies: InboundReply[] = [];
    await svc.inbound.deliver({ body: body({ capability: 'nothing-here' }), deliveryId: 's2', onReply: (reply) => replies.push(reply) });
    expect(replies.map((reply) => reply.payload)).toMatchObject([{ ok: false, error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } }]);
  });

  it('inbound port - an envelope decoded by the front door is not decoded again, and a closed node refuses', async () => {
    const svc = await fleet.node('svc');
    svc.handle('work', (input) => input);
    const bytes = body({ payload: 'from the envelope' });
    const peeked = peekEnvelope(bytes)!;
    // The front door's decoded envelope is what the inbox dispatches.
    const replies: InboundReply[] = [];
    await svc.inbound.deliver({ body: bytes, decoded: { envelope: { ...peeked.envelope, payload: 'decoded once' }, limits: peeked.limits }, deliveryId: 's3', onReply: (r) => replies.push(r) });
    expect(replies[0]?.payload).toEqual({ ok: true, data: 'decoded once' });

    await svc.close();
    await expect(svc.inbound.deliver({ body: bytes, deliveryId: 's4' })).rejects.toMatchObject({ code: 'EAGENTRPC_ABANDONED' });
  });
});
