import { randomBytes } from 'node:crypto';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import { connectOnce } from '../shared/connect-once.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { KafkaPublisher } from './kafka-publisher.js';
import { KafkaSubscription } from './kafka-subscription.js';
import { loadKafka, resolveKafkaOptions, type KafkaTransportOptions, type ResolvedKafkaOptions } from './kafka-options.js';

const KAFKA_TRAITS: TransportTraits = { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true };

/**
 * Kafka transport (kafkajs): at-least-once. Offsets are committed only after a delivery is
 * acked; an idempotent producer with acks=all; the message key (the flow's correlationId)
 * picks the partition, so a flow stays in order. Topics are created on demand.
 */
class KafkaTransport implements RpcTransport {
  readonly kind = 'kafka' as const;
  readonly traits = KAFKA_TRAITS;
  private readonly options: ResolvedKafkaOptions;
  private readonly logger: Logger;
  private kafka: Kafka | undefined;
  private producer: Producer | undefined;
  private admin: Admin | undefined;
  private publisher: KafkaPublisher | undefined;
  private closed = false;
  private readonly subscriptions = new Set<KafkaSubscription>();

  constructor(private readonly input: KafkaTransportOptions) {
    this.options = resolveKafkaOptions(input);
    this.logger = input.logger ?? silentLogger;
  }

  private readonly connectOnce = connectOnce(() => this.open());

  connect(): Promise<void> {
    return this.closed ? Promise.reject(closedError()) : this.connectOnce();
  }

  private async open(): Promise<void> {
    const module = await loadKafka(this.input.loadModule);
    const { brokers, clientId, client } = this.options;
    this.kafka = new module.Kafka({
      // kafkajs gives a new connection 1 s and 5 quick retries; a busy host or a broker
      // restarting needs more before a publish is reported as failed.
      connectionTimeout: 10_000,
      retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: 10 },
      ...client,
      brokers,
      clientId,
      logLevel: module.logLevel.NOTHING,
    });
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    this.admin = this.kafka.admin();
    await Promise.all([this.producer.connect(), this.admin.connect()]);
    this.publisher = new KafkaPublisher(this.producer, this.admin, this.options);
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    if (this.closed) throw closedError();
    if (!this.publisher) await this.connect();
    return (this.publisher as KafkaPublisher).publish(topic, message);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    await (this.publisher as KafkaPublisher).ensureTopic(topic);
    const shared = options.group !== undefined;
    const subscription = new KafkaSubscription(
      this.kafka as Kafka,
      {
        topic,
        // Narrowed per topic so subscriptions of one group never share rebalances; fan-out
        // subscribers each get a group of their own.
        groupId: shared ? `${options.group}.${topic}` : `fanout.${topic}.${randomBytes(6).toString('hex')}`,
        fromBeginning: shared,
        maxInflight: options.maxInflight ?? this.options.maxInflight,
        maxWaitTimeInMs: this.options.maxWaitTimeInMs,
        logger: this.logger,
      },
      handler,
    );
    this.subscriptions.add(subscription);
    try {
      await subscription.start();
    } catch (cause) {
      this.subscriptions.delete(subscription);
      await subscription.close().catch(() => undefined);
      throw new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `kafka subscribe to ${topic} failed: ${(cause as Error).message}`, { cause });
    }
    return {
      topic,
      close: async () => {
        if (this.subscriptions.delete(subscription)) await subscription.close();
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of [...this.subscriptions]) await subscription.close().catch(() => undefined);
    this.subscriptions.clear();
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
  }
}

function closedError(): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', 'kafka transport is closed');
}

export function kafkaTransport(options: KafkaTransportOptions): RpcTransport {
  return new KafkaTransport(options);
}
