import { describe, expect, it } from 'vitest';
import { startMosquittoServer } from '../../tools/brokers/index.js';
import { AgentProcess } from '../support/agent-process-client.js';
import { chaosBroker, consumerKilledBeforeAck, expectEachCallAppliedOnce, expectEchoRecoversFromKill, idempotentCallsAcrossKill } from '../support/chaos-kit.js';

describe('chaos - MQTT faults', () => {
  const broker = chaosBroker(startMosquittoServer, 60_000);
  const { start } = broker;

  it('chaos - broker killed during load: every call ends typed, calls succeed after restart, no process crashes', async () => {
    await expectEchoRecoversFromKill({
      start,
      broker: broker.server,
      transport: { kind: 'mqtt', url: broker.server.url, topicPrefix: 'kill/' },
      load: { before: 300, settledBeforeKill: 50, after: 100, timeoutMs: 3_000 },
      recovery: { callTimeoutMs: 1_000, withinMs: 15_000, backTimeoutMs: 5_000 },
    });
  }, 90_000);

  it('chaos - broker killed during 1,000 idempotent calls with retries: all end ok, the side effect happens exactly 1,000 times', async () => {
    const run = await idempotentCallsAcrossKill({
      start,
      broker: broker.server,
      transport: { kind: 'mqtt', url: broker.server.url, topicPrefix: 'count/' },
      dirPrefix: 'mqtt-kill-',
      calls: 1_000,
      settledBeforeKill: 150,
      timeoutMs: 120_000,
      retry: { attempts: 40, attemptTimeoutMs: 3_000, backoffMs: 250 },
    });
    expect(run.settledAtKill).toBeLessThan(1_000); // the broker died with calls still open
    expectEachCallAppliedOnce(run);
  }, 180_000);

  it('chaos - a consumer killed after the side effect but before its PUBACK: its session gets it again, not applied twice', async () => {
    const { base, doomed, call, effects } = await consumerKilledBeforeAck({
      start,
      transport: { kind: 'mqtt', url: broker.server.url, topicPrefix: 'crash/' },
      dirPrefix: 'mqtt-crash-',
      call: { timeoutMs: 60_000 },
    });
    expect(await doomed.exited).toBeNull(); // killed by SIGKILL, no exit code
    expect(effects()).toHaveLength(1);
    const result = await call; // the response left before the ack that killed the process
    expect(result).toMatchObject({ status: 'ok', response: 'counted' });
    // Back with the same session, the consumer gets the unacked request again (and dies on
    // its ack once more, which proves it arrived); dedupe answers it without a second effect.
    // It may die before it reports ready (the session hands the request over at once).
    const again = await AgentProcess.start({ ...base, killOnAckOf: '"capability":"count"' }).then(
      (agent) => agent.exited.then((code) => `exited with ${String(code)}`),
      (error: Error) => error.message,
    );
    expect(again).toMatch(/exited with null/);
    expect(effects()).toEqual([result.messageId]);
  }, 120_000);
});
