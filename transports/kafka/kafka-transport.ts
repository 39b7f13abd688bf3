import { randomBytes } from 'node:crypto';
import type { Admin, Kafka, Producer, RetryOptions } from 'kafkajs';
import type { BackoffPolicy } from '../../src/backoff.js';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { ConnectionState, DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { ConnectionStateReporter } from '../shared/connection-state.js';
import { kafkaEndpoint } from '../shared/broker-endpoint.js';
import { settleWithin } from '../shared/settle-within.js';
import { TransportBase } from '../shared/transport-base.js';
import { KafkaPublisher } from './kafka-publisher.js';
import { KafkaSubscription } from './kafka-subscription.js';
import { loadKafka, resolveKafkaOptions, type KafkaTransportOptions, type ResolvedKafkaOptions } from './kafka-options.js';

const KAFKA_TRAITS: TransportTraits = { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true };

/**
 * kafkajs retries connections and requests and restarts crashed consumers itself; its
 * schedule is set from the same kind of policy as every other retry here. kafkajs spreads
 * each delay by ±`factor` (its name for jitter) around the exponential value.
 */
const KAFKA_RETRY: BackoffPolicy = { initialMs: 100, maxMs: 5_000, factor: 2, jitter: 0.2 };
const KAFKA_RETRIES = 10;

function kafkajsRetry(policy: BackoffPolicy, retries: number): RetryOptions {
  return { initialRetryTime: policy.initialMs, maxRetryTime: policy.maxMs, multiplier: policy.factor ?? 2, factor: policy.jitter ?? 0.2, retries };
}

/**
 * Kafka transport (kafkajs): at-least-once. Offsets are committed only after a delivery is
 * acked; an idempotent producer with acks=all; the message key (the flow's correlationId)
 * picks the partition, so a flow stays in order. Topics are created on demand.
 */
class KafkaTransport extends TransportBase {
  readonly kind = 'kafka';
  readonly traits = KAFKA_TRAITS;
  private readonly options: ResolvedKafkaOptions;
  private kafka: Kafka | undefined;
  private producer: Producer | undefined;
  private admin: Admin | undefined;
  private publisher: KafkaPublisher | undefined;
  /** Lost while a consumer has failed and not yet rejoined its group (kafkajs reports no producer connection loss). */
  private readonly connection = new ConnectionStateReporter();

  constructor(private readonly input: KafkaTransportOptions) {
    const options = resolveKafkaOptions(input);
    super(input.logger);
    this.options = options;
  }

  protected async open(): Promise<void> {
    const module = await loadKafka(this.input.loadModule);
    const { brokers, clientId, client } = this.options;
    this.kafka = new module.Kafka({
      // kafkajs gives a new connection 1 s and 5 quick retries; a busy host or a broker
      // restarting needs more before a publish is reported as failed.
      connectionTimeout: 10_000,
      retry: kafkajsRetry(KAFKA_RETRY, KAFKA_RETRIES),
      ...client,
      brokers,
      clientId,
      logLevel: module.logLevel.NOTHING,
    });
    const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    const admin = this.kafka.admin();
    try {
      await Promise.all([producer.connect(), admin.connect()]);
    } catch (cause) {
      // Refused credentials or TLS, nothing listening: kafkajs has retried already.
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
      const { name, message } = cause as Error;
      throw new RpcError('EAGENTRPC_CONNECT_FAILED', `could not connect to Kafka (${brokers.join(', ')}): ${name}: ${message}`, { cause, details: { brokers } });
    }
    [this.producer, this.admin] = [producer, admin];
    // kafkajs does not say which broker it bootstrapped from: spans name the first listed.
    this.connectedTo(kafkaEndpoint(brokers[0]!));
    this.publisher = new KafkaPublisher(producer, admin, this.options);
  }

  onConnectionState(listener: (state: ConnectionState) => void): void {
    this.connection.listen(listener);
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    this.assertOpen();
    if (!this.publisher) await this.connect();
    return (this.publisher as KafkaPublisher).publish(topic, message);
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    const maxInflight = positiveInteger(options.maxInflight ?? this.options.maxInflight, 'subscribe: maxInflight');
    const created = await (this.publisher as KafkaPublisher).ensureTopic(topic, options.ephemeral);
    // An ephemeral topic lives with this subscriber: no group of its own outlives it.
    const shared = options.group !== undefined && !options.ephemeral;
    const subscription = new KafkaSubscription(
      this.kafka as Kafka,
      {
        topic,
        // Narrowed per topic so subscriptions of one group never share rebalances; fan-out
        // subscribers each get a group of their own.
        groupId: shared ? `${options.group}.${topic}` : `fanout.${topic}.${randomBytes(6).toString('hex')}`,
        fromBeginning: shared || created,
        // A fan-out subscriber starts at the end, except on a topic this process just created:
        // it has no history, and reading it from the start loses nothing published while the
        // consumer joins (its "latest" offset can be resolved after such a publish). Its
        // group commits that start before it reads, so a consumer that rejoins later (after
        // a broker outage) goes on from there, not from the then-latest offset.
        startOffsets: shared ? undefined : () => this.startOffsets(topic, created),
        commitIntervalMs: this.options.commitIntervalMs,
        sessionTimeoutMs: this.options.sessionTimeoutMs,
        heartbeatIntervalMs: this.options.heartbeatIntervalMs,
        maxInflight,
        maxWaitTimeInMs: this.options.maxWaitTimeInMs,
        logger: this.logger,
        metrics: this.options.metrics,
        connection: this.connection,
      },
      handler,
    );
    // Tracked before it starts, so close() of the transport also stops one still joining.
    const groupId = subscription.groupId;
    const tracked = this.track(topic, async () => {
      const reachable = subscription.reachable;
      await subscription.close();
      // A group of this subscription's own is never joined again: its offsets would only wait
      // for retention. Not with the broker gone: kafkajs would retry the delete for minutes,
      // holding up the shutdown (bounded here for a broker lost but not yet noticed), and
      // retention removes the group all the same.
      if (!shared && reachable) await settleWithin((this.admin as Admin).deleteGroups([groupId]), this.options.sessionTimeoutMs).catch(() => undefined);
    });
    try {
      await subscription.start();
    } catch (cause) {
      // The subscribe failure is what the caller needs; a failed cleanup of the half-made consumer adds nothing.
      await tracked.close().catch(() => undefined);
      throw new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `kafka subscribe to ${topic} failed: ${(cause as Error).message}`, { cause });
    }
    return tracked;
  }

  private async startOffsets(topic: string, fromBeginning: boolean): Promise<Array<{ partition: number; offset: string }>> {
    const offsets = await (this.admin as Admin).fetchTopicOffsets(topic);
    return offsets.map(({ partition, low, high }) => ({ partition, offset: fromBeginning ? low : high }));
  }

  protected async shutdown(): Promise<void> {
    await this.producer?.disconnect().catch((error: unknown) => this.logger.debug({ err: error }, 'kafka producer disconnect failed'));
    await this.admin?.disconnect().catch((error: unknown) => this.logger.debug({ err: error }, 'kafka admin disconnect failed'));
  }
}

export function kafkaTransport(options: KafkaTransportOptions): RpcTransport {
  return new KafkaTransport(options);
}
