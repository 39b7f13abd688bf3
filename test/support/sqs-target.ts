import type { RpcTransport } from '../../src/transport.js';
import { sqsTransport, type SqsTransportOptions } from '../../transports/sqs/index.js';
import { runBroker, runScope } from './run-brokers.js';
import type { TransportSpec } from './transport-spec.js';

/** ElasticMQ takes any credentials; the SDK needs some to sign with. */
export const ELASTICMQ_CREDENTIALS = { accessKeyId: 'agent-rpc', secretAccessKey: 'agent-rpc' } as const;

/** A test file's share of the run's SQS server (ElasticMQ). */
export interface RunSqs {
  readonly endpoint: string;
  /** Starts every queue name this file uses, so its queues are its own. */
  readonly queuePrefix: string;
  /** A connected transport on this file's queues; `options` may override any setting. */
  transport(options?: Partial<SqsTransportOptions>): Promise<RpcTransport>;
  /** The same, for an agent in a child process. */
  spec(): TransportSpec;
}

export async function runSqs(): Promise<RunSqs> {
  const { endpoint } = await runBroker('sqs');
  const queuePrefix = `${runScope()}-`;
  const base = { endpoint, region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS, queuePrefix, waitTimeMs: 1_000 };
  return {
    endpoint,
    queuePrefix,
    async transport(options = {}) {
      const transport = sqsTransport({ ...base, ...options });
      await transport.connect();
      return transport;
    },
    spec: () => ({ kind: 'sqs', endpoint, queuePrefix }),
  };
}
