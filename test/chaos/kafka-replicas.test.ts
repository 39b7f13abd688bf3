import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import { AgentProcess, type RemoteCallResult } from '../support/agent-process-client.js';
import { until } from '../support/fleet.js';

describe('chaos - Kafka caller replicas joining and leaving', () => {
  let server: KafkaServerHandle;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    server = await startKafkaServer();
  }, 120_000);

  afterAll(async () => {
    for (const agent of agents) if (agent.running) await agent.stop();
    await server?.stop();
  }, 60_000);

  it('chaos - 3 replicas x 1,000 sync calls while one joins and one leaves: all ok, each reply at its caller', async () => {
    const transport = { kind: 'kafka' as const, brokers: server.brokers };
    const start = async (id: string, instanceId: string, peers: string[]): Promise<AgentProcess> => {
      const agent = await AgentProcess.start({ id, instanceId, transport, peers });
      agents.push(agent);
      return agent;
    };
    await start('svc', 'svc-0', []);
    const callers = await Promise.all(['r1', 'r2', 'r3'].map((instance) => start('caller', instance, ['svc'])));
    const leaving = await start('caller', 'r0', ['svc']);

    let settled = 0;
    // Four calls in flight per replica keeps the load running long enough to span the change.
    const runReplica = async (replica: AgentProcess, index: number) => {
      const outcomes: Array<{ index: number; n: number; result: RemoteCallResult }> = [];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < 1_000) {
          const n = next++;
          const result = await replica.call({ to: 'svc', capability: 'echo', payload: { replica: index, n }, timeoutMs: 60_000 });
          settled++;
          outcomes.push({ index, n, result });
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      return outcomes;
    };
    const runs = callers.map(runReplica);
    await until(() => settled >= 300, 60_000);
    // Membership of the caller group changes under load: one replica joins, another leaves.
    const joined = await start('caller', 'r4', ['svc']);
    expect(await leaving.stop()).toBe(0);
    const settledDuringChange = settled;
    const outcomes = (await Promise.all(runs)).flat();

    expect(settledDuringChange).toBeLessThan(3_000);
    const failed = outcomes.filter(({ result }) => result.status !== 'ok');
    expect(failed.map(({ result }) => (result as RemoteCallResult).error?.code ?? result.status)).toEqual([]);
    for (const { index, n, result } of outcomes) expect(result.response).toEqual({ replica: index, n });
    expect(await joined.call({ to: 'svc', capability: 'echo', payload: 'new replica', timeoutMs: 30_000 })).toMatchObject({ status: 'ok' });
  }, 240_000);
});
