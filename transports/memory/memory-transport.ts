import { RpcError } from '../../src/errors.js';
import type {
  DeliveryHandler,
  OutboundMessage,
  RpcTransport,
  SubscribeOptions,
  Subscription,
  TransportTraits,
} from '../../src/transport.js';
import { MemoryBus, type MemoryMember } from './memory-bus.js';

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

class MemoryTransport implements RpcTransport {
  readonly kind = 'memory' as const;
  readonly traits = MEMORY_TRAITS;
  private readonly bus: MemoryBus;
  private readonly defaultMaxInflight: number;
  private readonly members = new Set<MemoryMember>();
  private closed = false;

  constructor(options: MemoryTransportOptions) {
    this.bus = options.bus ?? new MemoryBus();
    this.defaultMaxInflight = checkMaxInflight(options.maxInflight ?? 1024, 'memoryTransport: maxInflight');
  }

  async connect(): Promise<void> {
    if (this.closed) throw closedError();
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    if (this.closed) throw closedError();
    this.bus.publish(topic, message);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    if (this.closed) throw closedError();
    const maxInflight = checkMaxInflight(options.maxInflight ?? this.defaultMaxInflight, 'subscribe: maxInflight');
    const member = this.bus.join(topic, handler, options.group, maxInflight);
    this.members.add(member);
    return {
      topic,
      close: async () => {
        if (!this.members.delete(member)) return;
        member.close();
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const member of this.members) member.close();
    this.members.clear();
  }
}

function checkMaxInflight(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a positive integer, got ${value}`);
  return value;
}

function closedError(): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', 'memory transport is closed');
}

export function memoryTransport(options: MemoryTransportOptions = {}): RpcTransport {
  return new MemoryTransport(options);
}
