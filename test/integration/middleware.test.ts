import { afterEach, describe, expect, it } from 'vitest';
import type { Middleware } from '../../src/index.js';
import { perCallerRateLimit } from '../../examples/middleware/rate-limit.js';
import { redactFields } from '../../examples/middleware/redact.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';
import { AgentNode, PeerTable, RpcError } from '../../src/index.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { MemoryFleet } from '../support/fleet.js';

let fleet: MemoryFleet | undefined;
let nats: NatsServerHandle | undefined;
const nodes: AgentNode[] = [];

afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  for (const node of nodes.splice(0)) await node.close();
  await nats?.stop();
  nats = undefined;
});

describe('middleware - stages of the user wrapped once around handlers and calls', () => {
  it('middleware - the documented per-caller rate limit refuses the third call in a second with EAGENTRPC_BUSY, and only for that caller', async () => {
    fleet = new MemoryFleet();
    let second = 1_000;
    const server = await fleet.node('server', { middleware: [perCallerRateLimit(2, () => second)] });
    server.handle('lookup', (input) => input);
    const [alice, bob] = [await fleet.node('alice'), await fleet.node('bob')];
    const call = (node: AgentNode) => node.requestAgent({ to: 'server', capability: 'lookup', payload: { q: 1 } });
    const statuses = [await call(alice), await call(alice), await call(alice), await call(bob)].map((result) => result.error?.code ?? result.status);
    expect(statuses).toEqual(['ok', 'ok', 'EAGENTRPC_BUSY', 'ok']);
    second += 1_000;
    expect((await call(alice)).status).toBe('ok');
  });

  it('middleware - the documented redactor strips the named fields from outgoing calls and from answers, over NATS', async () => {
    nats = await startNatsServer();
    const peers = new PeerTable([
      { id: 'vault', routes: [{ kind: 'nats' }] },
      { id: 'client', routes: [{ kind: 'nats' }] },
    ]);
    const redact = redactFields(['password', 'token']);
    const seen: unknown[] = [];
    const vault = new AgentNode({ id: 'vault', transports: [natsTransport({ servers: nats.url })], peers, middleware: [redact] });
    vault.handle('login', (input) => {
      seen.push(input);
      return { user: 'ada', token: 'secret-token', nested: [{ password: 'p' }] };
    });
    const client = new AgentNode({ id: 'client', transports: [natsTransport({ servers: nats.url })], peers, middleware: [redact] });
    nodes.push(vault, client);
    await vault.start();
    await client.start();
    const result = await client.requestAgent({ to: 'vault', capability: 'login', payload: { user: 'ada', password: 'hunter2' } });
    expect(result.status).toBe('ok');
    expect(seen).toEqual([{ user: 'ada', password: '[redacted]' }]);
    expect(result.response).toEqual({ user: 'ada', token: '[redacted]', nested: [{ password: '[redacted]' }] });
  });

  it('middleware - handler wrappers run outermost first, around the handler, once per request; call wrappers see the built envelope and route', async () => {
    fleet = new MemoryFleet();
    const order: string[] = [];
    const trace = (name: string): Middleware => ({
      name,
      handler: (next, capability) => async (input, ctx) => {
        order.push(`${name}>${capability}`);
        const value = await next(input, ctx);
        order.push(`<${name}`);
        return value;
      },
      sending: (call) => order.push(`${name} sending ${call.envelope?.capability}`),
      call: (next) => async (call) => {
        const result = await next(call);
        order.push(`${name} sent ${call.route?.kind}:${call.route?.topic} ${result.status}`);
        return result;
      },
    });
    const server = await fleet.node('server', { middleware: [trace('outer'), trace('inner')] });
    server.handle('echo', (input) => {
      order.push('handler');
      return input;
    });
    const client = await fleet.node('client', { middleware: [trace('c')] });
    expect((await client.requestAgent({ to: 'server', capability: 'echo', payload: 1 })).response).toBe(1);
    expect(order).toEqual(['c sending echo', 'outer>echo', 'inner>echo', 'handler', '<inner', '<outer', 'c sent memory:agents.server.requests ok']);
    expect(server.stages.middleware.slice(-2)).toEqual(['outer', 'inner']);
  });

  it('middleware - a call wrapper refusing a call ends it with its typed error and nothing is sent', async () => {
    fleet = new MemoryFleet();
    const server = await fleet.node('server');
    let ran = 0;
    server.handle('echo', () => ran++);
    const client = await fleet.node('client', {
      middleware: [
        {
          name: 'closed',
          call: (next) => (call) => {
            if (call.capability === 'echo') throw new RpcError('EAGENTRPC_PERMISSION_DENIED', 'echo is closed today');
            return next(call);
          },
        },
      ],
    });
    const result = await client.requestAgent({ to: 'server', capability: 'echo', payload: 1 });
    expect(result.error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');
    expect(ran).toBe(0);
    expect((await client.requestAgent({ to: 'server', capability: '$ping', payload: null })).status).toBe('ok');
  });

  it('middleware - a malformed list is refused when the node is built, naming the entry', () => {
    expect(() => new AgentNode({ id: 'x', transports: fleetless(), middleware: [{ name: 'ok' }, { name: 'bad', handler: 5 } as never] })).toThrow(/middleware\[1\] \(bad\)\.handler/);
    expect(() => new AgentNode({ id: 'x', transports: fleetless(), middleware: [{} as never] })).toThrow(/middleware\[0\]/);
  });
});

function fleetless() {
  return [memoryTransport({ bus: new MemoryBus() })];
}
