import type { TransportsConfig } from '../config/transports-config.js';
import type { Logger } from '../observability/logger.js';
import type { RemoteNodeResolver } from '../remote-nodes/remote-node.js';
import type { RpcTransport } from '../transport.js';

export interface TransportContext {
  /** Agents of one process share it: `memory` is the in-process bus. */
  readonly memoryBus?: unknown;
  readonly clientId: string;
  readonly logger: Logger;
  /** Set by the daemon and the CLI: every agent also gets the `http` transport, to call remote nodes (`resolver`). */
  readonly http?: { readonly resolver: RemoteNodeResolver };
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
    const { httpTransport } = await import('../../transports/http/index.js');
    transports.push(httpTransport({ resolver: context.http.resolver, logger: context.logger.child({ transport: 'http' }) }));
  }
  return transports;
}
