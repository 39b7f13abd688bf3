import type { RpcTransport } from '../../src/transport.js';

/** How a test (or a child agent process) reaches a real broker. */
export type TransportSpec =
  | { readonly kind: 'nats'; readonly servers: string; readonly subjectPrefix?: string; readonly durable?: boolean }
  | { readonly kind: 'kafka'; readonly brokers: readonly string[] };

export async function createTransport(spec: TransportSpec, clientId: string): Promise<RpcTransport> {
  if (spec.kind === 'nats') {
    const { natsTransport } = await import('../../transports/nats/index.js');
    return natsTransport({ servers: spec.servers, subjectPrefix: spec.subjectPrefix, durable: spec.durable });
  }
  const { kafkaTransport } = await import('../../transports/kafka/index.js');
  return kafkaTransport({ brokers: [...spec.brokers], clientId });
}
