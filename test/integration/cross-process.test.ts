import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess } from '../support/agent-process-client.js';
import { runAmqp } from '../support/amqp-target.js';
import { until } from '../support/fleet.js';
import { runKafka } from '../support/kafka-target.js';
import { runMqtt } from '../support/mqtt-target.js';
import { runNats } from '../support/nats-target.js';
import { runSqs } from '../support/sqs-target.js';
import type { TransportSpec } from '../support/transport-spec.js';

/** Where the agents of one block meet: a transport spec, and for Kafka a tenant of the block's own. */
interface Broker {
  start(): Promise<{ transport: TransportSpec; tenantId?: string }>;
}

// Each block gets its own subject prefix or tenant on the run's brokers; Kafka starts only
// when its block begins.
const brokers: Array<[string, Broker]> = [
  ['nats', { start: async () => ({ transport: (await runNats()).spec() }) }],
  ['nats durable', { start: async () => ({ transport: (await runNats()).spec({ durable: true }) }) }],
  ['mqtt', { start: async () => ({ transport: (await runMqtt()).spec() }) }],
  ['sqs', { start: async () => ({ transport: (await runSqs()).spec() }) }],
  [
    'kafka',
    {
      start: async () => {
        const kafka = await runKafka();
        return { transport: kafka.spec(), tenantId: kafka.tenantId };
      },
    },
  ],
  ['amqp', { start: async () => ({ transport: (await runAmqp()).spec() }) }],
];

// Every envelope between the processes is HMAC-signed and verified: the transports carry
// signed envelopes end to end.
const sharedKey = { 'fleet-1': randomBytes(32).toString('hex') };
const signed = { keys: sharedKey, signingKeyId: 'fleet-1' };

describe.each(brokers)('cross-process over %s', (_name, broker) => {
  let alpha: AgentProcess;
  let beta: AgentProcess;
  let place: Awaited<ReturnType<Broker['start']>>;

  beforeAll(async () => {
    place = await broker.start();
    [alpha, beta] = await Promise.all([
      AgentProcess.start({ id: 'alpha', ...place, peers: ['beta'], hmac: signed }),
      AgentProcess.start({ id: 'beta', ...place, peers: ['alpha'], hmac: signed }),
    ]);
  }, 120_000);

  afterAll(async () => {
    expect(await alpha?.stop()).toBe(0);
    expect(await beta?.stop()).toBe(0);
  }, 60_000);

  it('cross-process - a sync call is answered by the other process', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'echo', payload: { hello: 'beta' } });
    expect(result).toMatchObject({ status: 'ok', response: { hello: 'beta' } });
    const whoami = await alpha.call({ to: 'beta', capability: 'whoami', payload: null });
    expect(whoami.response).toMatchObject({ id: 'beta' });
  });

  it('cross-process - progress responses arrive before the final one', async () => {
    const result = await beta.call({ to: 'alpha', capability: 'progress', payload: null });
    expect(result).toMatchObject({ status: 'ok', response: 'final', progress: ['step-1', 'step-2'] });
  });

  it('cross-process - an async call is answered on the caller bus', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'echo', payload: 'later', mode: 'async' });
    expect(result.status).toBe('ok');
    await until(() => alpha.busEvents.some((e) => e.name === 'agent.rpc.response' && (e.event as { requestId: string }).requestId === result.messageId));
    const event = alpha.busEvents.find((e) => (e.event as { requestId?: string }).requestId === result.messageId)!.event;
    expect(event).toMatchObject({ status: 'ok', response: 'later', correlationId: result.correlationId });
  });

  it('cross-process - fire-and-forget reaches the other process as an event', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'note', payload: { n: 1 }, mode: 'fire-and-forget' });
    expect(result.status).toBe('ok');
    await until(() => beta.busEvents.some((e) => e.name === 'agent.rpc.event'));
    const { envelope } = beta.busEvents.find((e) => e.name === 'agent.rpc.event')!.event as { envelope: { capability: string; correlationId: string } };
    expect(envelope).toMatchObject({ capability: 'note', correlationId: result.correlationId });
  });

  it('cross-process - a nested call back into the caller keeps the flow', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'relay', payload: { to: 'alpha', capability: 'whoami', payload: null } });
    expect(result.status).toBe('ok');
    expect(result.response).toMatchObject({ status: 'ok', response: { id: 'alpha' }, correlationId: result.correlationId });
  });

  it('cross-process - a process signing with a key the receiver does not hold is refused with a typed error', async () => {
    // gamma can verify beta's answers (it holds the fleet key) but signs with a key beta lacks.
    const keys = { ...sharedKey, 'gamma-own': randomBytes(32).toString('hex') };
    const gamma = await AgentProcess.start({ id: 'gamma', ...place, peers: ['beta'], hmac: { keys, signingKeyId: 'gamma-own' } });
    try {
      const result = await gamma.call({ to: 'beta', capability: 'echo', payload: 'let me in', timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: 'unknown-key' } } });
    } finally {
      expect(await gamma.stop()).toBe(0);
    }
  }, 60_000);

  it('cross-process - two agents calling each other forever are stopped by the guard; the caller gets a typed error', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'bounce', payload: { other: 'alpha' }, timeoutMs: 60_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_GUARD_REJECTED' } });
  }, 90_000);

  it('cross-process - an unknown capability is a typed error, not a timeout', async () => {
    const result = await alpha.call({ to: 'beta', capability: 'nope', payload: null, timeoutMs: 20_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
  });
});
