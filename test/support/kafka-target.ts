import type { RpcTransport } from '../../src/transport.js';
import { kafkaTransport, type KafkaTransportOptions } from '../../transports/kafka/index.js';
import { runBroker, runScope } from './run-brokers.js';
import type { TransportSpec } from './transport-spec.js';

/** A test file's share of the run's Kafka broker. */
export interface RunKafka {
  readonly brokers: string[];
  /**
   * This file's tenant. Kafka has no topic prefix: agents with fixed ids run under it, so
   * their topics (`agents.<id>.<tenantId>.requests`) and consumer groups are the file's own.
   * Raw topics in tests are random names already.
   */
  readonly tenantId: string;
  /** A connected transport; `options` may override any setting. */
  transport(options?: Omit<KafkaTransportOptions, 'brokers'>): Promise<RpcTransport>;
  /** The same, for an agent in a child process. */
  spec(): TransportSpec;
}

/** The run's Kafka (started when the run's first file asks), with a tenant of its own (a fresh one on each call). */
export async function runKafka(): Promise<RunKafka> {
  const { brokers } = await runBroker('kafka');
  return {
    brokers: [...brokers],
    tenantId: runScope(),
    async transport(options = {}) {
      const transport = kafkaTransport({ brokers: [...brokers], ...options });
      await transport.connect();
      return transport;
    },
    spec: () => ({ kind: 'kafka', brokers: [...brokers] }),
  };
}
