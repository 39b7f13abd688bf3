import type { KafkaConfig, RetryOptions, SASLOptions } from 'kafkajs';
import type { Logger } from '../../src/observability/logger.js';

/** kafkajs log levels by name; `nothing` (the default) keeps kafkajs silent. */
export const KAFKA_LOG_LEVELS = ['nothing', 'error', 'warn', 'info', 'debug'] as const;
export type KafkaLogLevel = (typeof KAFKA_LOG_LEVELS)[number];

/** kafkajs client settings passed through as they are (timeouts, socketFactory, ...). */
export type KafkaClientSettings = Omit<KafkaConfig, 'brokers' | 'clientId' | 'ssl' | 'sasl' | 'logLevel' | 'logCreator'>;

/** Consumer group tuning: how fast a dead member's partitions move on, fetch sizes. */
export interface KafkaConsumerSettings {
  readonly sessionTimeout?: number;
  readonly heartbeatInterval?: number;
  readonly rebalanceTimeout?: number;
  readonly maxBytesPerPartition?: number;
}

export interface KafkaTransportOptions {
  /** `host:port` bootstrap list. */
  readonly brokers: readonly string[];
  /** Default `agent-rpc`. */
  readonly clientId?: string;
  readonly ssl?: KafkaConfig['ssl'];
  readonly sasl?: SASLOptions;
  /** Partitions of the topics this transport creates; per-instance reply topics get 1. Default 3. */
  readonly partitions?: number;
  /** Replication factor of the topics this transport creates. Default 1. */
  readonly replicationFactor?: number;
  /** Deliveries handed out and not yet settled, per subscription. Default 256. */
  readonly maxInflight?: number;
  /** How long a fetch may wait at the broker for data. Default 10 ms. */
  readonly maxWaitTimeInMs?: number;
  /** How long publishes wait to share one produce request. Default 0 (those of one event-loop turn). */
  readonly lingerMs?: number;
  /** Upper bound of the message bytes sent in one produce request. Default 512 KiB. */
  readonly maxBatchBytes?: number;
  /** Publishes accepted and not yet acknowledged by the broker; past it publish fails EAGENTRPC_BUSY. Default 10,000. */
  readonly maxPendingPublishes?: number;
  /** Retries of one produce request (kafkajs retry options). Default ~12 s of backoff, see docs. */
  readonly publishRetry?: RetryOptions;
  readonly consumer?: KafkaConsumerSettings;
  /** How long closing a subscription waits for its handed-out deliveries to settle (their acks get committed). Default 5,000 ms. */
  readonly drainTimeoutMs?: number;
  /** Delete this instance's reply topics when the transport closes. Default false (see docs). */
  readonly deleteReplyTopicsOnClose?: boolean;
  /** kafkajs log level, written to `logger`. Default `nothing`. */
  readonly logLevel?: KafkaLogLevel;
  readonly logger?: Logger;
  readonly client?: KafkaClientSettings;
  /** Loads the `kafkajs` package. Replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

export interface ResolvedKafkaOptions {
  readonly brokers: string[];
  readonly clientId: string;
  readonly ssl: KafkaConfig['ssl'];
  readonly sasl: SASLOptions | undefined;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly maxInflight: number;
  readonly maxWaitTimeInMs: number;
  readonly lingerMs: number;
  readonly maxBatchBytes: number;
  readonly maxPendingPublishes: number;
  readonly publishRetry: RetryOptions;
  readonly consumer: Required<KafkaConsumerSettings>;
  readonly drainTimeoutMs: number;
  readonly deleteReplyTopicsOnClose: boolean;
  readonly logLevel: KafkaLogLevel;
  readonly client: KafkaClientSettings;
}

/**
 * Bounded, unlike kafkajs' default for idempotent producers (retry forever): a produce
 * request that cannot get through fails after ~12 s instead of holding every later
 * publish behind it. The producer is replaced after such a failure (see KafkaPublisher),
 * which keeps idempotence sound.
 */
const DEFAULT_PUBLISH_RETRY: RetryOptions = { retries: 10, initialRetryTime: 100, maxRetryTime: 2_000 };

// Short sessions: a dead replica's partitions move on within seconds.
const DEFAULT_CONSUMER: Required<KafkaConsumerSettings> = {
  sessionTimeout: 10_000,
  heartbeatInterval: 1_000,
  rebalanceTimeout: 10_000,
  maxBytesPerPartition: 1_048_576,
};

function integer(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError(`kafkaTransport: ${field} must be an integer, got ${String(value)}`);
  if (value < min) throw new RangeError(`kafkaTransport: ${field} must be >= ${min}, got ${value}`);
  return value;
}

function object<T>(value: T | undefined, field: string): T | undefined {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new TypeError(`kafkaTransport: ${field} must be an object`);
  }
  return value;
}

export function resolveKafkaOptions(options: KafkaTransportOptions): ResolvedKafkaOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('kafkaTransport: options must be an object');
  const { brokers } = options;
  if (!Array.isArray(brokers) || brokers.length === 0 || brokers.some((b) => typeof b !== 'string' || !/^[^:\s]+:\d+$/.test(b))) {
    throw new TypeError('kafkaTransport: brokers must list host:port addresses');
  }
  const clientId = options.clientId ?? 'agent-rpc';
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('kafkaTransport: clientId must be a non-empty string');
  if (options.ssl !== undefined && typeof options.ssl !== 'boolean') object(options.ssl, 'ssl');
  const sasl = object(options.sasl, 'sasl');
  if (sasl !== undefined && typeof sasl.mechanism !== 'string') throw new TypeError('kafkaTransport: sasl.mechanism must be a string');
  const logLevel = options.logLevel ?? 'nothing';
  if (!KAFKA_LOG_LEVELS.includes(logLevel)) throw new TypeError(`kafkaTransport: logLevel must be one of ${KAFKA_LOG_LEVELS.join(', ')}`);
  if (options.deleteReplyTopicsOnClose !== undefined && typeof options.deleteReplyTopicsOnClose !== 'boolean') {
    throw new TypeError('kafkaTransport: deleteReplyTopicsOnClose must be a boolean');
  }
  if (options.loadModule !== undefined && typeof options.loadModule !== 'function') throw new TypeError('kafkaTransport: loadModule must be a function');
  const consumer = { ...DEFAULT_CONSUMER, ...object(options.consumer, 'consumer') };
  for (const [field, value] of Object.entries(consumer)) integer(value, `consumer.${field}`, 1);
  const publishRetry = { ...DEFAULT_PUBLISH_RETRY, ...object(options.publishRetry, 'publishRetry') };
  // An idempotent producer needs at least one retry (kafkajs refuses zero).
  integer(publishRetry.retries, 'publishRetry.retries', 1);
  if (consumer.heartbeatInterval >= consumer.sessionTimeout) {
    throw new RangeError('kafkaTransport: consumer.heartbeatInterval must be below consumer.sessionTimeout');
  }
  return {
    brokers: [...brokers],
    clientId,
    ssl: options.ssl,
    sasl,
    partitions: integer(options.partitions ?? 3, 'partitions', 1),
    replicationFactor: integer(options.replicationFactor ?? 1, 'replicationFactor', 1),
    maxInflight: integer(options.maxInflight ?? 256, 'maxInflight', 1),
    maxWaitTimeInMs: integer(options.maxWaitTimeInMs ?? 10, 'maxWaitTimeInMs', 1),
    lingerMs: integer(options.lingerMs ?? 0, 'lingerMs', 0),
    maxBatchBytes: integer(options.maxBatchBytes ?? 512 * 1024, 'maxBatchBytes', 1024),
    maxPendingPublishes: integer(options.maxPendingPublishes ?? 10_000, 'maxPendingPublishes', 1),
    publishRetry,
    consumer,
    drainTimeoutMs: integer(options.drainTimeoutMs ?? 5_000, 'drainTimeoutMs', 0),
    deleteReplyTopicsOnClose: options.deleteReplyTopicsOnClose ?? false,
    logLevel,
    client: object(options.client, 'client') ?? {},
  };
}
