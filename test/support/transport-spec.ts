import type { Logger } from '../../src/logger.js';
import type { RpcTransport } from '../../src/transport.js';

/** How a test (or a child agent process) reaches a real broker. */
export type TransportSpec =
  | { readonly kind: 'nats'; readonly servers: string; readonly subjectPrefix?: string; readonly durable?: boolean | { readonly ackWaitMs?: number; readonly maxDeliver?: number } }
  | { readonly kind: 'kafka'; readonly brokers: readonly string[] }
  | { readonly kind: 'mqtt'; readonly url: string; readonly topicPrefix?: string }
  | { readonly kind: 'sqs'; readonly endpoint: string; readonly queuePrefix: string; readonly visibilityTimeoutMs?: number }
  | { readonly kind: 'amqp'; readonly url: string; readonly prefix?: string };

export async function createTransport(spec: TransportSpec, clientId: string, logger?: Logger): Promise<RpcTransport> {
  if (spec.kind === 'nats') {
    const { natsTransport } = await import('../../transports/nats/index.js');
    return natsTransport({ servers: spec.servers, subjectPrefix: spec.subjectPrefix, durable: spec.durable });
  }
  if (spec.kind === 'mqtt') {
    const { mqttTransport } = await import('../../transports/mqtt/index.js');
    // The session is the process's identity: a restarted process with the same id gets what was left unacked.
    return mqttTransport({ url: spec.url, topicPrefix: spec.topicPrefix, clientId: `${spec.topicPrefix ?? ''}${clientId}`, sessionExpiryS: 300 });
  }
  if (spec.kind === 'sqs') {
    const { sqsTransport } = await import('../../transports/sqs/index.js');
    return sqsTransport({ endpoint: spec.endpoint, region: 'elasticmq', credentials: { accessKeyId: 'agent-rpc', secretAccessKey: 'agent-rpc' }, queuePrefix: spec.queuePrefix, waitTimeMs: 1_000, visibilityTimeoutMs: spec.visibilityTimeoutMs });
  }
  if (spec.kind === 'amqp') {
    const { amqpTransport } = await import('../../transports/amqp/index.js');
    return amqpTransport({ url: spec.url, prefix: spec.prefix });
  }
  const { kafkaTransport } = await import('../../transports/kafka/index.js');
  return kafkaTransport({ brokers: [...spec.brokers], clientId, ...(logger ? { logger } : {}) });
}
