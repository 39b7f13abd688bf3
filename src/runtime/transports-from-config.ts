import type { TransportsConfig } from '../config/transports-config.js';
import type { Logger } from '../observability/logger.js';
import type { RemoteNodeResolver } from '../server/remote-nodes/remote-node.js';
import type { RpcTransport } from '../transport.js';

export interface TransportContext {
  /** Agents of one process share it: `memory` is the in-process bus. */
  readonly memoryBus?: unknown;
  readonly clientId: string;
  readonly logger: Logger;
  /**
   * Set by the daemon: every agent also gets the `http` transport, through which its node's
   * session API hands requests in and remote nodes (`resolver`) are called.
   */
  readonly http?: { readonly ingress: unknown; readonly resolver: RemoteNodeResolver };
}

/** One transport per configured kind; broker client packages load only when configured. */
export async function transportsFromConfig(config: TransportsConfig, context: TransportContext): Promise<RpcTransport[]> {
  const transports: RpcTransport[] = [];
  if (config.memory) {
    const { memoryTransport, MemoryBus } = await import('../../transports/memory/index.js');
    const bus = context.memoryBus instanceof MemoryBus ? context.memoryBus : new MemoryBus();
    transports.push(memoryTransport({ bus }));
  }
  if (config.nats) {
    const { natsTransport } = await import('../../transports/nats/index.js');
    transports.push(natsTransport({ ...config.nats, logger: context.logger.child({ transport: 'nats' }) }));
  }
  if (config.kafka) {
    const { kafkaTransport } = await import('../../transports/kafka/index.js');
    transports.push(kafkaTransport({ clientId: context.clientId, ...config.kafka, logger: context.logger.child({ transport: 'kafka' }) }));
  }
  if (context.http) {
    const { httpTransport, HttpIngress } = await import('../../transports/http/index.js');
    if (!(context.http.ingress instanceof HttpIngress)) throw new TypeError('transportsFromConfig: http.ingress must be an HttpIngress');
    transports.push(httpTransport({ ingress: context.http.ingress, resolver: context.http.resolver, logger: context.logger.child({ transport: 'http' }) }));
  }
  return transports;
}
