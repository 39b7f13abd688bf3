import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import { AgentProcess, type RemoteCallResult } from '../support/agent-process-client.js';
import { until } from '../support/fleet.js';

const effectsOf = (path: string): string[] => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

describe('chaos - Kafka faults', () => {
  let server: KafkaServerHandle;
  const running: AgentProcess[] = [];
  const start = async (config: Parameters<typeof AgentProcess.start>[0]): Promise<AgentProcess> => {
    const agent = await AgentProcess.start(config);
    running.push(agent);
    return agent;
  };

  beforeAll(async () => {
    server = await startKafkaServer();
  }, 120_000);

  afterAll(async () => {
    for (const agent of running) if (agent.running) await agent.stop();
    await server?.stop();
  }, 60_000);

  it('chaos - broker killed during 2,000 idempotent calls: all end ok, the side effect happens exactly 2,000 times', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafka-kill-'));
    const effectsFile = join(dir, 'effects.log');
    const transport = { kind: 'kafka' as const, brokers: server.brokers };
    const counter = await start({ id: 'counter', transport, peers: [], sqlitePath: join(dir, 'dedupe.db'), effectsFile });
    const caller = await start({ id: 'caller', transport, peers: ['counter'] });
    let settled = 0;
    const calls: Array<Promise<RemoteCallResult>> = [];
    for (let i = 0; i < 2_000; i++) {
      const call = caller.call({
        to: 'counter',
        capability: 'count',
        payload: i,
        timeoutMs: 180_000,
        retry: { attempts: 40, attemptTimeoutMs: 5_000, backoffMs: 250 },
      });
      void call.then(() => settled++);
      calls.push(call);
    }
    await until(() => settled >= 300, 60_000);
    await server.kill();
    const settledAtKill = settled;
    await server.restart();
    const results = await Promise.all(calls);
    // The broker died with most calls still open.
    expect(settledAtKill).toBeLessThan(1_500);
    expect(results.filter((r) => r.status !== 'ok').map((r) => r.error?.code)).toEqual([]);
    expect(settled).toBe(2_000);
    const effects = effectsOf(effectsFile);
    expect(new Set(effects).size).toBe(2_000);
    expect(effects).toHaveLength(2_000);
    expect(counter.running && caller.running).toBe(true);
  }, 240_000);

  it('chaos - a consumer killed after the side effect but before the commit: redelivered, not applied twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafka-crash-'));
    const effectsFile = join(dir, 'effects.log');
    const transport = { kind: 'kafka' as const, brokers: server.brokers };
    const base = { id: 'worker', instanceId: 'worker-0', transport, peers: [], sqlitePath: join(dir, 'dedupe.db'), effectsFile };
    const doomed = await start({ ...base, killOnAckOf: '"capability":"count"' });
    const caller = await start({ id: 'boss', transport, peers: ['worker'] });
    const call = caller.call({ to: 'worker', capability: 'count', payload: 'once', timeoutMs: 120_000, retry: { attempts: 30, attemptTimeoutMs: 4_000 } });
    expect(await doomed.exited).toBeNull(); // killed by SIGKILL, no exit code
    expect(effectsOf(effectsFile)).toHaveLength(1);
    await start(base);
    const result = await call;
    expect(result).toMatchObject({ status: 'ok', response: 'counted' });
    expect(effectsOf(effectsFile)).toEqual([result.messageId]);
  }, 180_000);
});
