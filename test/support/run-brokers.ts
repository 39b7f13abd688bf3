import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { askBrokerService, type BrokerAddresses, type BrokerKind } from '../../tools/brokers/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The broker service of this run (test/support/run-brokers-setup.ts); the brokers project provides it. */
    brokerService: string;
  }
}

/**
 * The run's server of `kind`: one NATS, one Kafka and one Redis serve every file of the
 * brokers project, started by its global setup when a file first asks.
 */
export function runBroker<K extends BrokerKind>(kind: K): Promise<BrokerAddresses[K]> {
  const service = inject('brokerService');
  if (!service) {
    throw new Error(`the run's ${kind} comes from the brokers project's global setup (test/support/run-brokers-setup.ts): put this file in that project (vitest.config.ts)`);
  }
  return askBrokerService(service, kind);
}

/**
 * A name no other file of the run uses (`s3f9a1c2e`): the prefix of this file's subjects,
 * its tenant on Kafka, its Redis keys. Files share the run's servers and never see each
 * other's traffic, streams or consumer groups.
 */
export function runScope(): string {
  return `s${randomBytes(4).toString('hex')}`;
}
