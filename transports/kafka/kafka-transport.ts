import { randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { isInstanceReplyTopic } from '../../src/rpc/topics.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { connectOnce } from '../shared/connect-once.js';
import { kafkaLogCreator, kafkajsLevel, loadKafka } from './kafka-module.js';
import { resolveKafkaOptions, type KafkaTransportOptions, type ResolvedKafkaOptions } from './kafka-options.js';
import { KafkaPublisher } from './kafka-publisher.js';
import { KafkaSubscription } from './kafka-subscription.js';
import { KafkaTopics } from './kafka-topics.js';

const KAFKA_TRAITS: TransportTraits = { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true };

interface Connected {
  readonly kafka: Kafka;
  readonly topics: KafkaTopics;
  readonly publisher: KafkaPublisher;
}

/**
 * Kafka transport (kafkajs), at-least-once: offsets are committed only after deliveries
 * are acked; an idempotent producer with acks=all; the message key (the flow's
 * correlationId) picks the partition, so a flow stays in order. Topics are created on
 * demand. Each instance reads its replies from a topic of its own (see `replyTopic`).
 */
class KafkaTransport implements RpcTransport {
  readonly kind = 'kafka' as const;
  readonly traits = KAFKA_TRAITS;
  private readonly options: ResolvedKafkaOptions;
  private readonly logger: Logger;
  private connected: Connected | undefined;
  private producer: { instance: Producer; ready: Promise<Producer> } | undefined;
  private readonly subscriptions = new Set<KafkaSubscription>();
  /** Reply topics named by this transport, and those of them it consumes. */
  private readonly ownReplyTopics = new Set<string>();
  private readonly consumedReplyTopics = new Set<string>();
  private opening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly input: KafkaTransportOptions) {
    this.options = resolveKafkaOptions(input);
    this.logger = input.logger ?? silentLogger;
  }

  private readonly connectOnce = connectOnce(() => (this.opening = this.open()));

  connect(): Promise<void> {
    return this.closing ? Promise.reject(closedError()) : this.connectOnce();
  }

  /**
   * A topic per instance, with one partition, read by a consumer whose group is this
   * subscription's alone: no rebalance among replicas can move another replica's replies
   * here. See docs/transports/kafka.md for why not a partition of a shared topic.
   */
  replyTopic(responsesTopic: string, instanceId: string): string {
    const topic = `${responsesTopic}.${instanceId}`;
    this.ownReplyTopics.add(topic);
    return topic;
  }

  private async open(): Promise<void> {
    const module = await loadKafka(this.input.loadModule);
    const { brokers, clientId, ssl, sasl, client, logLevel } = this.options;
    const kafka = new module.Kafka({ ...client, brokers, clientId, ssl, sasl, logLevel: kafkajsLevel(logLevel), logCreator: kafkaLogCreator(this.logger) });
    const admin = kafka.admin();
    try {
      await admin.connect();
    } catch (cause) {
      throw unavailable('connect', cause);
    }
    const topics = new KafkaTopics(admin, this.options.replicationFactor);
    const producers = { get: () => this.currentProducer(), discard: (producer: Producer) => this.discardProducer(producer) };
    const preparer = { prepare: (topic: string) => this.preparePublish(topic), forget: (topic: string) => topics.forget(topic) };
    const publisher = new KafkaPublisher(producers, preparer, this.options);
    this.connected = { kafka, topics, publisher };
    // Connected now, so the first publish does not wait for it; a failure here is retried by it.
    await this.currentProducer().catch(() => undefined);
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    if (this.closing) throw closedError();
    if (!this.connected) {
      try {
        await this.connect();
      } catch (cause) {
        throw cause instanceof RpcError && cause.code !== 'EAGENTRPC_TRANSPORT_CLOSED' ? cause : publishFailed(cause);
      }
    }
    return (this.connected as Connected).publisher.publish(topic, message);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    if (typeof handler !== 'function') throw new TypeError('subscribe: handler must be a function');
    const maxInflight = options.maxInflight ?? this.options.maxInflight;
    if (!Number.isInteger(maxInflight) || maxInflight < 1) throw new RangeError(`subscribe: maxInflight must be a positive integer, got ${maxInflight}`);
    if (options.group !== undefined && (typeof options.group !== 'string' || options.group.length === 0)) {
      throw new TypeError('subscribe: group must be a non-empty string');
    }
    await this.connect();
    const { kafka, topics } = this.connected as Connected;
    const replies = this.isReplyTopic(topic);
    try {
      await topics.ensure(topic, replies ? 1 : this.options.partitions);
    } catch (cause) {
      throw unavailable('subscribe', cause, topic);
    }
    const shared = options.group !== undefined;
    // Narrowed per topic, so subscriptions of one group never share rebalances; fan-out
    // subscribers each get a group of their own.
    const groupId = shared ? `${options.group}.${topic}` : `${this.options.clientId}.${topic}.${randomUUID()}`;
    const { maxWaitTimeInMs, drainTimeoutMs, consumer } = this.options;
    const settings = { topic, groupId, shared, maxInflight, maxWaitTimeInMs, drainTimeoutMs, consumer, logger: this.logger };
    const subscription = new KafkaSubscription(kafka, topics, settings, handler);
    this.subscriptions.add(subscription);
    try {
      await subscription.start();
      if (this.closing) throw closedError();
    } catch (cause) {
      this.subscriptions.delete(subscription);
      await subscription.close().catch(() => undefined);
      throw this.closing ? closedError() : unavailable('subscribe', cause, topic);
    }
    if (replies && !shared) this.consumedReplyTopics.add(topic);
    return {
      topic,
      close: async () => {
        if (this.subscriptions.delete(subscription)) await subscription.close();
      },
    };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    await this.opening?.catch(() => undefined);
    const subscriptions = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((s) => s.close().catch((err: unknown) => this.warn(err, 'kafka subscription close failed'))));
    const connected = this.connected;
    if (!connected) return;
    // Publishes accepted before close get their outcome from the broker.
    await connected.publisher.drained();
    if (this.options.deleteReplyTopicsOnClose) {
      await connected.topics.deleteTopics([...this.consumedReplyTopics]).catch((err: unknown) => this.warn(err, 'kafka reply topic deletion failed'));
    }
    await this.producer?.instance.disconnect().catch(() => undefined);
    await connected.topics.disconnect();
  }

  private isReplyTopic(topic: string): boolean {
    return this.ownReplyTopics.has(topic) || isInstanceReplyTopic(topic);
  }

  /** Undefined when the topic is known to be ready, so the hot path allocates nothing. */
  private preparePublish(topic: string): Promise<void> | undefined {
    const { topics } = this.connected as Connected;
    if (topics.isReady(topic)) return undefined;
    if (!this.isReplyTopic(topic)) return topics.ensure(topic, this.options.partitions);
    // Another instance's reply topic: that instance created it before it sent its request.
    return this.ownReplyTopics.has(topic) ? topics.ensure(topic, 1) : topics.requireExisting(topic);
  }

  private currentProducer(): Promise<Producer> {
    if (!this.producer) {
      const { kafka } = this.connected as Connected;
      const instance = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: this.options.publishRetry });
      const ready = instance.connect().then(() => instance);
      const entry = { instance, ready };
      ready.catch(() => this.discardProducer(instance));
      this.producer = entry;
    }
    return this.producer.ready;
  }

  private discardProducer(producer: Producer): void {
    if (this.producer?.instance === producer) this.producer = undefined;
    producer.disconnect().catch(() => undefined);
  }

  private warn(err: unknown, message: string): void {
    if (this.logger.isLevelEnabled('warn')) this.logger.warn({ err }, message);
  }
}

function closedError(): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', 'kafka transport is closed');
}

function publishFailed(cause: unknown): RpcError {
  return new RpcError('EAGENTRPC_PUBLISH_FAILED', `kafka publish failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
}

/** The broker could not be reached or refused the operation (no dedicated code exists for connect/subscribe). */
function unavailable(operation: 'connect' | 'subscribe', cause: unknown, topic?: string): RpcError {
  if (cause instanceof RpcError) return cause;
  const where = topic === undefined ? '' : ` to ${topic}`;
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `kafka ${operation}${where} failed: ${(cause as Error)?.message ?? String(cause)}`, {
    cause,
    details: { operation, ...(topic === undefined ? {} : { topic }) },
  });
}

export function kafkaTransport(options: KafkaTransportOptions): RpcTransport {
  return new KafkaTransport(options);
}
