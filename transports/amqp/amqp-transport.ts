import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Connection, Publisher } from 'rabbitmq-client';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { amqpEndpoint } from '../shared/broker-endpoint.js';
import { coalesceWrites } from '../shared/coalesce-writes.js';
import { closedError, TransportBase } from '../shared/transport-base.js';
import { keepRawBodies } from './amqp-raw-bodies.js';
import { consumeQueue } from './amqp-subscription.js';
import { loadRabbitMqClient, resolveAmqpOptions, type AmqpTransportOptions, type ResolvedAmqpOptions } from './amqp-options.js';
import { deadQueue, declareInbox, exchangeDeclarations, inboxQueue, privateQueue, topologyOf, type Topology } from './amqp-topology.js';

const AMQP_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true };

/** The client's reconnect back-off: from 250 ms, doubling with jitter, up to 5 s. */
const RETRY_LOW_MS = 250;
const RETRY_HIGH_MS = 5_000;
/** Publishes retried by the client over a lost connection (the inbox dedupes a duplicate). */
const PUBLISH_ATTEMPTS = 3;

/**
 * AMQP 0-9-1 transport (RabbitMQ, with rabbitmq-client): at least once. Inbox topics are
 * durable queues shared by the group's members, acked after dispatch, nacks republished with
 * the attempt counted in a header, dead-lettered at `maxDeliver` into a queue the
 * subscribers hand to the DLQ; publishes wait for the broker's confirm; subscribers without
 * a group and reply topics get exclusive auto-delete queues. See amqp-topology.ts.
 */
class AmqpTransport extends TransportBase {
  readonly kind = 'amqp';
  readonly traits = AMQP_TRAITS;
  private readonly options: ResolvedAmqpOptions;
  private readonly topology: Topology;
  private rabbit: Connection | undefined;
  private publisher: Publisher | undefined;
  /** Topics whose inbox queue exists (declared by this connection, or found). */
  private readonly declared = new Map<string, Promise<void>>();
  /** Topics whose declaration has succeeded (a publish to them need not wait for it). */
  private readonly inboxes = new Set<string>();
  /** Message ids for publishes that bring none (replies): this transport's prefix and a counter. */
  private readonly publishIds = `${randomUUID()}.`;
  private published = 0;

  constructor(private readonly input: AmqpTransportOptions) {
    const options = resolveAmqpOptions(input);
    super(input.logger);
    this.options = options;
    this.topology = topologyOf(options.prefix);
  }

  protected async open(): Promise<void> {
    const module = await loadRabbitMqClient(this.input.loadModule);
    const { url, connectTimeoutMs, publishTimeoutMs, metrics } = this.options;
    const rabbit = new module.Connection({
      url,
      retryLow: RETRY_LOW_MS,
      retryHigh: RETRY_HIGH_MS,
      acquireTimeout: publishTimeoutMs,
      connectionTimeout: Math.min(10_000, connectTimeoutMs),
      // Small frames one at a time: with Nagle's algorithm a lone call waits ~40 ms for the peer's delayed ACK.
      noDelay: true,
    });
    keepRawBodies(rabbit);
    let connections = 0;
    let lastError: unknown;
    rabbit.on('connection', () => {
      // A new socket per connection; rabbitmq-client writes each frame by itself (see coalesceWrites).
      const socket = (rabbit as unknown as { _socket?: Writable })._socket;
      if (socket) coalesceWrites(socket);
      if (++connections > 1) metrics.transportReconnected?.('amqp');
      if (this.logger.isLevelEnabled('info')) this.logger.info({ connections }, 'amqp connection established');
    });
    rabbit.on('error', (error: unknown) => {
      lastError = error;
      this.logger.warn({ err: error }, 'amqp connection error; reconnecting');
    });
    try {
      await rabbit.onConnect(connectTimeoutMs);
    } catch (cause) {
      rabbit.unsafeDestroy();
      const reason = (lastError as Error | undefined)?.message ?? (cause as Error).message;
      throw new RpcError('EAGENTRPC_CONNECT_FAILED', `could not connect to RabbitMQ (${redacted(url)}) within ${connectTimeoutMs} ms: ${reason}`, { cause: lastError ?? cause, details: { url: redacted(url) } });
    }
    this.rabbit = rabbit;
    // rabbitmq-client does not say which address it reached; the transport has one URL.
    this.connectedTo(amqpEndpoint(url));
    this.publisher = rabbit.createPublisher({ confirm: true, maxAttempts: PUBLISH_ATTEMPTS, exchanges: exchangeDeclarations(this.topology) });
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    this.assertOpen();
    if (!this.publisher) await this.connect();
    const publisher = this.publisher as Publisher;
    try {
      // An inbox keeps what is published before its first subscriber: its queue exists first.
      // Once it does, no await: a resolved promise still costs a turn of the microtask queue.
      if (!message.ephemeral && !this.inboxes.has(topic)) await this.ensureInbox(topic);
      const body = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
      await publisher.send(
        {
          exchange: this.topology.exchange,
          routingKey: topic,
          // A consumer tells a broker redelivery by it (DeliveryIds): unique, but it needs no randomness of its own per message.
          messageId: message.messageId ?? this.publishIds + ++this.published,
          correlationId: message.key,
          durable: !message.ephemeral,
        },
        body,
      );
    } catch (cause) {
      if (this.closed) throw closedError(this.kind);
      if (cause instanceof RpcError) throw cause;
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `amqp publish to ${topic} failed: ${(cause as Error).message}`, { cause, details: { topic } });
    }
  }

  private ensureInbox(topic: string): Promise<void> {
    let declared = this.declared.get(topic);
    if (declared === undefined) {
      declared = declareInbox(this.rabbit as Connection, this.topology, topic);
      this.declared.set(topic, declared);
      declared.then(
        () => this.inboxes.add(topic),
        () => this.declared.delete(topic),
      );
    }
    return declared;
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    const rabbit = this.rabbit as Connection;
    const maxInflight = positiveInteger(options.maxInflight ?? this.options.maxInflight, 'subscribe: maxInflight');
    const trustedExchanges = new Set(['', this.topology.deadLetterExchange]);
    const common = { topic, handler, maxInflight, logger: this.logger, publisher: this.publisher as Publisher, setupTimeoutMs: this.options.connectTimeoutMs, trustedExchanges };
    const stops: Array<() => Promise<void>> = [];
    const tracked = this.track(topic, async () => {
      for (const stop of stops) await stop();
    });
    try {
      if (options.group !== undefined && !options.ephemeral) {
        await this.ensureInbox(topic);
        // The queue's settings are the publisher's declaration; consumers only check it exists.
        stops.push((await consumeQueue(rabbit, { ...common, maxDeliver: this.options.maxDeliver, props: { queue: inboxQueue(this.topology, topic), queueOptions: { passive: true } } })).close);
        stops.push((await consumeQueue(rabbit, { ...common, exhausted: true, props: { queue: deadQueue(this.topology, topic), queueOptions: { passive: true } } })).close);
      } else {
        const queue = privateQueue(this.topology, topic);
        const props = {
          queue,
          queueOptions: { exclusive: true, autoDelete: true, durable: false },
          exchanges: exchangeDeclarations(this.topology),
          queueBindings: [{ exchange: this.topology.exchange, queue, routingKey: topic }],
        };
        stops.push((await consumeQueue(rabbit, { ...common, props })).close);
      }
    } catch (cause) {
      await tracked.close().catch(() => undefined);
      if (cause instanceof RpcError) throw cause;
      throw new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `amqp subscribe to ${topic} failed: ${(cause as Error).message}`, { cause, details: { topic } });
    }
    return tracked;
  }

  protected async shutdown(): Promise<void> {
    await this.publisher?.close().catch((error: unknown) => this.logger.debug({ err: error }, 'amqp publisher close failed'));
    await this.rabbit?.close().catch((error: unknown) => this.logger.debug({ err: error }, 'amqp connection close failed'));
  }
}

/** The URL without its password, for messages and logs. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'amqp://(unparsable url)';
  }
}

export function amqpTransport(options: AmqpTransportOptions): RpcTransport {
  return new AmqpTransport(options);
}
