import { describe, expect, it } from 'vitest';
import { startKafkaServer } from '../../tools/brokers/index.js';
import { chaosBroker, consumerKilledBeforeAck, expectAnsweredOnceAfterRestart, expectEachCallAppliedOnce, idempotentCallsAcrossKill } from '../support/chaos-kit.js';

describe('chaos - Kafka faults', () => {
  const broker = chaosBroker(startKafkaServer, 120_000);
  const { start } = broker;

  it('chaos - broker killed during 2,000 idempotent calls: all end ok, the side effect happens exactly 2,000 times', async () => {
    const run = await idempotentCallsAcrossKill({
      start,
      broker: broker.server,
      transport: { kind: 'kafka', brokers: broker.server.brokers },
      dirPrefix: 'kafka-kill-',
      calls: 2_000,
      settledBeforeKill: 300,
      timeoutMs: 180_000,
      // A publish may fail at once while the broker is down: the attempts (250 ms apart)
      // must outlast a Kafka restart on a loaded machine (over 10 s at times), within the
      // call's 180 s deadline.
      retry: { attempts: 160, attemptTimeoutMs: 5_000, backoffMs: 250 },
    });
    // The broker died with most calls still open.
    expect(run.settledAtKill).toBeLessThan(1_500);
    expect(run.settled).toBe(2_000);
    expectEachCallAppliedOnce(run);
  }, 240_000);

  it('chaos - a consumer killed after the side effect but before the commit: redelivered, not applied twice', async () => {
    const scenario = await consumerKilledBeforeAck({
      start,
      transport: { kind: 'kafka', brokers: broker.server.brokers },
      dirPrefix: 'kafka-crash-',
      call: { timeoutMs: 120_000, retry: { attempts: 30, attemptTimeoutMs: 4_000 } },
    });
    await expectAnsweredOnceAfterRestart(scenario, start);
  }, 180_000);
});
