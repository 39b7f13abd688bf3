import type { KafkaConfig } from 'kafkajs';
import { nonNegativeInteger, positiveInteger } from '../../src/check-integer.js';
import type { Logger } from '../../src/logger.js';
import { noMetrics, type RpcMetrics } from '../../src/observability/index.js';
import type { KafkaTransportConfig } from './kafka-config.js';
import { loadClientPackage } from '../shared/load-client-package.js';

export type KafkaModule = typeof import('kafkajs');

/** Passed to kafkajs (ssl, sasl, connectionTimeout...). */
export type KafkaClientOptions = Omit<KafkaConfig, 'brokers' | 'clientId' | 'logLevel' | 'logCreator'>;

/**
 * The options of kafkaConfigSchema (capabilities.yaml `transports.kafka`), with what only
 * code can pass: kafkajs client settings as objects, a logger, metrics.
 * - `brokers`: `host:port` list.
 * - `clientId`: kafkajs client id. Default `agent-rpc` (from config: the agent id).
 * - `partitions`: partitions of the topics this transport creates (ephemeral ones get 1). Default 3.
 * - `replicationFactor`: of created topics. Default 1.
 * - `maxInflight`: deliveries handed out and not yet settled, per subscription. Default 256.
 * - `maxWaitTimeInMs`: how long a fetch waits for data; small values cut reply latency. Default 10 ms.
 * - `lingerMs`: how long publishes wait to be sent together in one request. Default 0 (same tick).
 * - `commitIntervalMs`: at most one offset commit per subscription per this many ms. Default 100.
 * - `publishTimeoutMs`: a publish the broker has not acknowledged by then fails. Default 30,000.
 * - `sessionTimeoutMs`: how long the group waits for a consumer that stopped heartbeating
 *   (a killed instance) before its partitions move on. Default 10,000.
 * - `heartbeatIntervalMs`: how often consumers heartbeat; below sessionTimeoutMs. Default 1,000.
 */
export interface KafkaTransportOptions extends Omit<KafkaTransportConfig, 'brokers' | 'client'> {
  readonly brokers: readonly string[];
  readonly client?: KafkaClientOptions;
  readonly logger?: Logger;
  /** Offset commit failures and consumer restarts. Default: none. */
  readonly metrics?: RpcMetrics;
  /** Loads the `kafkajs` package; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

export interface ResolvedKafkaOptions {
  readonly brokers: string[];
  readonly clientId: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly maxInflight: number;
  readonly maxWaitTimeInMs: number;
  readonly lingerMs: number;
  readonly commitIntervalMs: number;
  readonly publishTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly client: KafkaClientOptions;
  readonly metrics: RpcMetrics;
}

const field = (name: string): string => `kafkaTransport: ${name}`;

export function resolveKafkaOptions(options: KafkaTransportOptions): ResolvedKafkaOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('kafkaTransport: options must be an object');
  if (!Array.isArray(options.brokers) || options.brokers.length === 0 || options.brokers.some((b) => typeof b !== 'string' || !b.includes(':'))) {
    throw new TypeError('kafkaTransport: brokers must list host:port addresses');
  }
  const clientId = options.clientId ?? 'agent-rpc';
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('kafkaTransport: clientId must be a non-empty string');
  const sessionTimeoutMs = positiveInteger(options.sessionTimeoutMs ?? 10_000, field('sessionTimeoutMs'));
  const heartbeatIntervalMs = positiveInteger(options.heartbeatIntervalMs ?? Math.min(1_000, Math.floor(sessionTimeoutMs / 3)), field('heartbeatIntervalMs'));
  if (heartbeatIntervalMs >= sessionTimeoutMs) throw new RangeError(`${field('heartbeatIntervalMs')} (${heartbeatIntervalMs}) must be below sessionTimeoutMs (${sessionTimeoutMs})`);
  return {
    brokers: [...options.brokers],
    clientId,
    partitions: positiveInteger(options.partitions ?? 3, field('partitions')),
    replicationFactor: positiveInteger(options.replicationFactor ?? 1, field('replicationFactor')),
    maxInflight: positiveInteger(options.maxInflight ?? 256, field('maxInflight')),
    maxWaitTimeInMs: positiveInteger(options.maxWaitTimeInMs ?? 10, field('maxWaitTimeInMs')),
    lingerMs: nonNegativeInteger(options.lingerMs ?? 0, field('lingerMs')),
    commitIntervalMs: nonNegativeInteger(options.commitIntervalMs ?? 100, field('commitIntervalMs')),
    publishTimeoutMs: positiveInteger(options.publishTimeoutMs ?? 30_000, field('publishTimeoutMs')),
    sessionTimeoutMs,
    heartbeatIntervalMs,
    client: options.client ?? {},
    metrics: options.metrics ?? noMetrics,
  };
}

export function loadKafka(loadModule?: () => Promise<unknown>): Promise<KafkaModule> {
  // kafkajs is CommonJS: under ESM its exports may sit on `default`.
  return loadClientPackage<KafkaModule>(loadModule ?? (() => import('kafkajs')), 'Kafka', 'kafkajs', (module) => Boolean(module.Kafka));
}
