import { positiveInteger } from '../../src/check-integer.js';
import type { DeliveryHandler, OutboundMessage, SubscribeOptions, Subscription, TransportTraits, RpcTransport } from '../../src/transport.js';
import { TransportBase } from '../shared/transport-base.js';
import { MemoryBus } from './memory-bus.js';

export interface MemoryTransportOptions {
  /** The bus shared with the other nodes of this process. Default: a private bus. */
  readonly bus?: MemoryBus;
  /** Default in-flight deliveries per subscription. Default 1,024. */
  readonly maxInflight?: number;
}

const MEMORY_TRAITS: TransportTraits = {
  redelivery: true,
  orderedByKey: true,
  retainsUnconsumed: true,
  remoteSubscribe: true,
};

class MemoryTransport extends TransportBase {
  readonly kind = 'memory';
  readonly traits = MEMORY_TRAITS;
  private readonly bus: MemoryBus;
  private readonly defaultMaxInflight: number;

  constructor(options: MemoryTransportOptions) {
    super();
    this.bus = options.bus ?? new MemoryBus();
    this.defaultMaxInflight = positiveInteger(options.maxInflight ?? 1024, 'memoryTransport: maxInflight');
  }

  protected async open(): Promise<void> {}

  protected async shutdown(): Promise<void> {}

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    this.assertOpen();
    this.bus.publish(topic, message);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    const maxInflight = positiveInteger(options.maxInflight ?? this.defaultMaxInflight, 'subscribe: maxInflight');
    const member = this.bus.join(topic, handler, options.group, maxInflight);
    return this.track(topic, async () => member.close());
  }
}

export function memoryTransport(options: MemoryTransportOptions = {}): RpcTransport {
  return new MemoryTransport(options);
}
