import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { AgentProcess, type RemoteCallResult } from '../support/agent-process-client.js';
import { until } from '../support/fleet.js';

const TYPED_STATUSES = ['ok', 'timeout', 'error', 'busy', 'abandoned'];

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
    const inFlight: Array<Promise<RemoteCallResult>> = [];
    let settled = 0;
    const fire = (count: number): void => {
      for (let i = 0; i < count; i++) {
        const call = alpha.call({ to: 'beta', capability: 'echo', payload: i, timeoutMs: 3_000 });
        void call.then(() => settled++);
        inFlight.push(call);
      }
    };
    fire(300);
    await until(() => settled >= 50);
    await server.kill();
    fire(100);
    const results = await Promise.all(inFlight);
    for (const result of results) {
      expect(TYPED_STATUSES).toContain(result.status);
      if (result.status !== 'ok') expect(result.error?.code).toMatch(/^EAGENTRPC_/);
    }
    // The kill landed during the load: some calls got through, some were cut off.
    expect(results.some((r) => r.status === 'ok')).toBe(true);
    expect(results.some((r) => r.status !== 'ok')).toBe(true);
    await server.restart();
    const recoveredBy = Date.now() + 15_000;
    let recovered: RemoteCallResult | undefined;
    while (Date.now() < recoveredBy) {
      recovered = await alpha.call({ to: 'beta', capability: 'echo', payload: 'after restart', timeoutMs: 1_000 });
      if (recovered.status === 'ok') break;
    }
    expect(recovered).toMatchObject({ status: 'ok', response: 'after restart' });
    expect(await beta.call({ to: 'alpha', capability: 'echo', payload: 'both ways', timeoutMs: 5_000 })).toMatchObject({ status: 'ok' });
    expect(alpha.running && beta.running).toBe(true);
  }, 90_000);
});
