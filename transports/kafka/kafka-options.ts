import type { KafkaConfig } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';

export type KafkaModule = typeof import('kafkajs');

export interface KafkaTransportOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** Partitions of the topics this transport creates (reply topics get 1). Default 3. */
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** Deliveries handed out and not yet settled, per subscription. Default 256. */
  readonly maxInflight?: number;
  /** How long a fetch waits for data; small values cut reply latency. Default 10 ms. */
  readonly maxWaitTimeInMs?: number;
  /** How long publishes wait to be sent together in one request. Default 0 (same tick). */
  readonly lingerMs?: number;
  /** Passed to kafkajs (ssl, sasl, connectionTimeout...). */
  readonly client?: Omit<KafkaConfig, 'brokers' | 'clientId' | 'logLevel' | 'logCreator'>;
  readonly logger?: Logger;
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
  readonly client: Omit<KafkaConfig, 'brokers' | 'clientId' | 'logLevel' | 'logCreator'>;
}

function nonNegativeInt(value: unknown, field: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RangeError(`kafkaTransport: ${field} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

export function resolveKafkaOptions(options: KafkaTransportOptions): ResolvedKafkaOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('kafkaTransport: options must be an object');
  if (!Array.isArray(options.brokers) || options.brokers.length === 0 || options.brokers.some((b) => typeof b !== 'string' || !b.includes(':'))) {
    throw new TypeError('kafkaTransport: brokers must list host:port addresses');
  }
  const clientId = options.clientId ?? 'agent-rpc';
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('kafkaTransport: clientId must be a non-empty string');
  return {
    brokers: [...options.brokers],
    clientId,
    partitions: nonNegativeInt(options.partitions ?? 3, 'partitions', 1),
    replicationFactor: nonNegativeInt(options.replicationFactor ?? 1, 'replicationFactor', 1),
    maxInflight: nonNegativeInt(options.maxInflight ?? 256, 'maxInflight', 1),
    maxWaitTimeInMs: nonNegativeInt(options.maxWaitTimeInMs ?? 10, 'maxWaitTimeInMs', 1),
    lingerMs: nonNegativeInt(options.lingerMs ?? 0, 'lingerMs'),
    client: options.client ?? {},
  };
}

export async function loadKafka(loadModule?: () => Promise<unknown>): Promise<KafkaModule> {
  try {
    const module = (await (loadModule ?? (() => import('kafkajs')))()) as KafkaModule & { default?: KafkaModule };
    // kafkajs is CommonJS: under ESM its exports may sit on `default`.
    return module.Kafka ? module : (module.default as KafkaModule);
  } catch (cause) {
    throw new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the Kafka transport needs the kafkajs package: run `npm install kafkajs`', { cause });
  }
}
