import { Kafka, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import { kafkaTransport } from '../../transports/kafka/index.js';
import { expectAnsweredOnceAcrossCrash, runCrashScenario } from '../support/crash-scenario.js';

const CONCURRENCY = 6;

describe('chaos - claims across a crash on a Kafka inbox', () => {
  let server: KafkaServerHandle;
  let admin: Admin;

  beforeAll(async () => {
    server = await startKafkaServer();
    admin = new Kafka({ clientId: 'crash-claims-admin', brokers: server.brokers, logLevel: 0 }).admin();
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await admin?.disconnect();
    await server?.stop();
  }, 60_000);

  /** The agent's group has committed every message of its request topic. */
  const inboxCommitted = async (): Promise<boolean> => {
    const topic = 'agents.counter.requests';
    const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: `counter.${topic}`, topics: [topic] })]);
    return ends.every(({ partition, high }) => committed?.partitions.find((p) => p.partition === partition)?.offset === high);
  };

  it('chaos - agent killed with SIGKILL after ~75 of 300 runs and restarted at once: nothing dead-lettered, each request answered once, runs repeated at most once per handler in flight', async () => {
    const outcome = await runCrashScenario({
      agent: { transport: { kind: 'kafka', brokers: server.brokers }, peers: [] },
      callerTransport: async () => kafkaTransport({ brokers: server.brokers, clientId: 'caller' }),
      settledAtBroker: inboxCommitted,
      requests: 300,
      concurrency: CONCURRENCY,
      killAfterRuns: 75,
      handlerMs: 20,
    });
    const repeated = expectAnsweredOnceAcrossCrash(outcome, 300, CONCURRENCY);
    console.info(`kafka crash: ${outcome.runsAtKill} runs before the kill, ${repeated} run twice, ${outcome.tally.deliveries} answer deliveries for 300 requests`);
  }, 300_000);
});
