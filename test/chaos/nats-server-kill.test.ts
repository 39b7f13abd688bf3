import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { AgentProcess } from '../support/agent-process-client.js';
import { callUntilOk, echoLoadAcrossKill, expectTypedOutcomes } from '../support/chaos-kit.js';

describe('chaos - NATS server killed during load', () => {
  let server: NatsServerHandle;
  let alpha: AgentProcess;
  let beta: AgentProcess;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    const transport = { kind: 'nats' as const, servers: server.url };
    [alpha, beta] = await Promise.all([
      AgentProcess.start({ id: 'alpha', transport, peers: ['beta'] }),
      AgentProcess.start({ id: 'beta', transport, peers: ['alpha'] }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await alpha?.stop();
    await beta?.stop();
    await server?.stop();
  }, 60_000);

  it('chaos - in-flight calls end typed, new calls succeed after restart, no process crashes', async () => {
    const results = await echoLoadAcrossKill({ from: alpha, to: 'beta', broker: server, before: 300, settledBeforeKill: 50, after: 100, timeoutMs: 3_000 });
    expectTypedOutcomes(results);
    await server.restart();
    const recovered = await callUntilOk(alpha, { to: 'beta', capability: 'echo', payload: 'after restart', timeoutMs: 1_000 }, 15_000);
    expect(recovered).toMatchObject({ status: 'ok', response: 'after restart' });
    expect(await beta.call({ to: 'alpha', capability: 'echo', payload: 'both ways', timeoutMs: 5_000 })).toMatchObject({ status: 'ok' });
    expect(alpha.running && beta.running).toBe(true);
  }, 90_000);
});
