import { startElasticMqServer } from './elasticmq-server.js';
import { kafkaBrokersFromEnv, mqttUrlFromEnv, natsUrlFromEnv, rabbitMqUrlFromEnv, redisUrlFromEnv, sqsEndpointFromEnv } from './env-brokers.js';
import { startKafkaServer, type KafkaServerOptions } from './kafka-server.js';
import { startMosquittoServer } from './mosquitto-server.js';
import { startNatsServer } from './nats-server.js';
import { startRabbitMqServer } from './rabbitmq-server.js';
import { startRedisServer } from './redis-server.js';

export const BROKER_KINDS = ['nats', 'kafka', 'redis', 'rabbitmq', 'mqtt', 'sqs'] as const;
export type BrokerKind = (typeof BROKER_KINDS)[number];

/** How clients reach a broker of each kind. */
export interface BrokerAddresses {
  readonly nats: { readonly url: string };
  readonly kafka: { readonly brokers: readonly string[] };
  readonly redis: { readonly url: string };
  readonly rabbitmq: { readonly url: string };
  readonly mqtt: { readonly url: string };
  /** An SQS endpoint (ElasticMQ when started here). */
  readonly sqs: { readonly endpoint: string };
}

interface Running<K extends BrokerKind> {
  readonly address: BrokerAddresses[K];
  /** Undefined for a server given by the environment: not ours to stop. */
  readonly stop: (() => Promise<void>) | undefined;
}

export interface SharedBrokersOptions {
  /** Read for NATS_URL, KAFKA_BROKERS, REDIS_URL, RABBITMQ_URL, MQTT_URL and SQS_ENDPOINT (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  readonly kafka?: KafkaServerOptions;
}

/**
 * One server of each kind, shared by everyone who asks: NATS with JetStream, Kafka (KRaft)
 * and Redis. Each starts on its first request, so nobody waits for a broker they do not
 * use (a NATS-only run never starts a JVM). A server given by the environment (NATS_URL,
 * KAFKA_BROKERS, REDIS_URL) is used instead and never started or stopped.
 */
export class SharedBrokers {
  private readonly running = new Map<BrokerKind, Promise<Running<BrokerKind>>>();
  private stopped = false;

  constructor(private readonly options: SharedBrokersOptions = {}) {}

  /** The address of the shared server of `kind`, started on the first call. A failed start is retried on the next call. */
  async get<K extends BrokerKind>(kind: K): Promise<BrokerAddresses[K]> {
    if (this.stopped) throw new Error(`shared brokers: stopped, cannot start ${kind}`);
    let running = this.running.get(kind);
    if (running === undefined) {
      running = this.start(kind);
      this.running.set(kind, running);
      running.catch(() => this.running.delete(kind));
    }
    return ((await running) as Running<K>).address;
  }

  /** Stops every server this instance started; waits for starts still under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.allSettled(all.map(async (running) => (await running).stop?.()));
  }

  private async start(kind: BrokerKind): Promise<Running<BrokerKind>> {
    const env = this.options.env ?? process.env;
    switch (kind) {
      case 'nats': {
        const url = natsUrlFromEnv(env);
        if (url !== undefined) return { address: { url }, stop: undefined };
        const server = await startNatsServer({ jetstream: true });
        return { address: { url: server.url }, stop: () => server.stop() };
      }
      case 'kafka': {
        const brokers = kafkaBrokersFromEnv(env);
        if (brokers !== undefined) return { address: { brokers }, stop: undefined };
        const server = await startKafkaServer(this.options.kafka);
        return { address: { brokers: server.brokers }, stop: () => server.stop() };
      }
      case 'redis': {
        const url = redisUrlFromEnv(env);
        if (url !== undefined) return { address: { url }, stop: undefined };
        const server = await startRedisServer();
        return { address: { url: server.url }, stop: () => server.stop() };
      }
      case 'rabbitmq': {
        const url = rabbitMqUrlFromEnv(env);
        if (url !== undefined) return { address: { url }, stop: undefined };
        const server = await startRabbitMqServer();
        return { address: { url: server.url }, stop: () => server.stop() };
      }
      case 'mqtt': {
        const url = mqttUrlFromEnv(env);
        if (url !== undefined) return { address: { url }, stop: undefined };
        const server = await startMosquittoServer();
        return { address: { url: server.url }, stop: () => server.stop() };
      }
      case 'sqs': {
        const endpoint = sqsEndpointFromEnv(env);
        if (endpoint !== undefined) return { address: { endpoint }, stop: undefined };
        const server = await startElasticMqServer();
        return { address: { endpoint: server.endpoint }, stop: () => server.stop() };
      }
    }
  }
}
