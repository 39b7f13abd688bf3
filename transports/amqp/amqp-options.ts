import { positiveInteger } from '../../src/check-integer.js';
import type { Logger } from '../../src/logger.js';
import { noMetrics, type RpcMetrics } from '../../src/observability/index.js';
import type { AmqpTransportConfig } from './amqp-config.js';
import { loadClientPackage } from '../shared/load-client-package.js';

export type AmqpModule = typeof import('rabbitmq-client');

/**
 * The options of amqpConfigSchema (capabilities.yaml `transports.amqp`), with what only code
 * can pass: the password itself, a logger, metrics.
 * - `url`: `amqp://user:password@host:5672/vhost` (`amqps://` for TLS).
 * - `prefix`: prepended to every exchange and queue name the transport declares (e.g. `prod.`).
 * - `maxInflight`: deliveries handed out and not yet settled, per subscription (the channel's
 *   prefetch). Default 256.
 * - `maxDeliver`: deliveries of one inbox message; its nack after that dead-letters it. Default 5.
 * - `connectTimeoutMs`: how long `connect()` waits for the first connection before it fails with
 *   EAGENTRPC_CONNECT_FAILED. Once connected, the client reconnects forever, with back-off.
 *   Default 30,000 ms.
 * - `publishTimeoutMs`: how long a publish waits for a connection and the broker's confirm
 *   before it fails with EAGENTRPC_PUBLISH_FAILED. Default 20,000 ms.
 */
export interface AmqpTransportOptions extends Omit<AmqpTransportConfig, 'passwordRef'> {
  /** Replaces the URL's password. */
  readonly password?: string | undefined;
  readonly logger?: Logger;
  /** Reconnects and messages the transport could not hand over. Default: none. */
  readonly metrics?: RpcMetrics;
  /** Loads the `rabbitmq-client` package; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

export interface ResolvedAmqpOptions {
  readonly url: string;
  readonly prefix: string;
  readonly maxInflight: number;
  readonly maxDeliver: number;
  readonly connectTimeoutMs: number;
  readonly publishTimeoutMs: number;
  readonly metrics: RpcMetrics;
}

const field = (name: string): string => `amqpTransport: ${name}`;

/** The URL with its password replaced (percent-encoded, as the URL syntax needs). */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

export function resolveAmqpOptions(options: AmqpTransportOptions): ResolvedAmqpOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('amqpTransport: options must be an object');
  if (typeof options.url !== 'string' || !/^amqps?:\/\/\S+$/.test(options.url)) throw new TypeError('amqpTransport: url must be an amqp:// or amqps:// URL');
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.:-]*$/.test(prefix)) throw new TypeError('amqpTransport: prefix may hold letters, digits and _ . : - only');
  return {
    url: withPassword(options.url, options.password),
    prefix,
    maxInflight: positiveInteger(options.maxInflight ?? 256, field('maxInflight')),
    maxDeliver: positiveInteger(options.maxDeliver ?? 5, field('maxDeliver')),
    connectTimeoutMs: positiveInteger(options.connectTimeoutMs ?? 30_000, field('connectTimeoutMs')),
    publishTimeoutMs: positiveInteger(options.publishTimeoutMs ?? 20_000, field('publishTimeoutMs')),
    metrics: options.metrics ?? noMetrics,
  };
}

export function loadRabbitMqClient(loadModule?: () => Promise<unknown>): Promise<AmqpModule> {
  return loadClientPackage<AmqpModule>(loadModule ?? (() => import('rabbitmq-client')), 'AMQP', 'rabbitmq-client');
}
