import type { TestProject } from 'vitest/node';
import { serveBrokers, SharedBrokers } from '../../tools/brokers/index.js';

/**
 * Global setup of the brokers project: one NATS, one Kafka and one Redis for the whole
 * run, each started when a test file first asks for it (test/support/run-brokers.ts), so
 * a run of NATS files never waits for Kafka. NATS_URL, KAFKA_BROKERS and REDIS_URL, when
 * set, are used instead. Everything started is stopped when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const brokers = new SharedBrokers({ kafka: { log: (message) => process.stderr.write(`brokers: ${message}\n`) } });
  const service = await serveBrokers(brokers);
  project.provide('brokerService', service.url);
  return async () => {
    await service.close();
    await brokers.stop();
  };
}
