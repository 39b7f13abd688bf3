import { RpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import type { BrokerEndpoint, DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { connectOnce } from './connect-once.js';

/** The one error for an operation on a closed transport. */
export function closedError(kind: string): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `${kind} transport is closed`);
}

/**
 * What every transport does the same way: a closed flag, one connection attempt shared by
 * concurrent callers (a failed one is forgotten), and the subscriptions it handed out,
 * all stopped by close() before the connection is released.
 */
export abstract class TransportBase implements RpcTransport {
  abstract readonly kind: string;
  abstract readonly traits: TransportTraits;
  private isClosed = false;
  /** close() of each subscription handed out, with its topic. */
  private readonly stops = new Map<() => Promise<void>, string>();
  private readonly connectShared = connectOnce(() => this.open());
  private endpoint: BrokerEndpoint | undefined;

  constructor(protected readonly logger: Logger = silentLogger) {}

  /** The broker connected to (RpcTransport.brokerEndpoint), as the transport last set it. */
  get brokerEndpoint(): BrokerEndpoint | undefined {
    return this.endpoint;
  }

  /** A broker transport names its server when it connects, and again when the connection changes. */
  protected connectedTo(endpoint: BrokerEndpoint | undefined): void {
    this.endpoint = endpoint;
  }

  protected get closed(): boolean {
    return this.isClosed;
  }

  /** Idempotent. Resolves when publish and subscribe can be used. */
  connect(): Promise<void> {
    return this.isClosed ? Promise.reject(closedError(this.kind)) : this.connectShared();
  }

  /** Throws EAGENTRPC_TRANSPORT_CLOSED once close() was called. */
  protected assertOpen(): void {
    if (this.isClosed) throw closedError(this.kind);
  }

  /** Opens the connection; runs once per successful connect (again after a failed one). */
  protected abstract open(): Promise<void>;

  /** Releases the connection, after every subscription was stopped. */
  protected abstract shutdown(): Promise<void>;

  abstract publish(topic: string, message: OutboundMessage): Promise<void>;
  abstract subscribe(topic: string, handler: DeliveryHandler, options?: SubscribeOptions): Promise<Subscription>;

  /** A subscription whose close() runs `stop` once, and which close() of the transport stops too. */
  protected track(topic: string, stop: () => Promise<void>): Subscription {
    const close = async (): Promise<void> => {
      if (!this.stops.delete(close)) return;
      await stop();
    };
    this.stops.set(close, topic);
    return { topic, close };
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    // Side by side: a subscription that takes its time (a broker gone) does not add to the others'.
    await Promise.all([...this.stops].map(([stop, topic]) => stop().catch((error: unknown) => this.logger.warn({ err: error, topic }, 'subscription did not close cleanly'))));
    await this.shutdown();
  }
}
