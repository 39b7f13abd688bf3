import { nonNegativeInteger, positiveInteger } from '../../src/check-integer.js';
import type { Logger } from '../../src/logger.js';
import { noMetrics, type RpcMetrics } from '../../src/observability/index.js';
import type { SqsTransportConfig } from './sqs-config.js';
import { loadClientPackage } from '../shared/load-client-package.js';

export type SqsModule = typeof import('@aws-sdk/client-sqs');

export interface SqsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/**
 * The options of sqsConfigSchema (capabilities.yaml `transports.sqs`), with what only code
 * can pass:
 * - `endpoint`: an SQS-compatible server (ElasticMQ); omitted, AWS's endpoint for `region`.
 * - `region`: default `us-east-1` (ElasticMQ accepts any).
 * - `credentials`: static keys; omitted, the AWS SDK's default provider chain.
 * - `queuePrefix`: prepended to every queue name. Default none.
 * - `fifo`: FIFO queues (`.fifo`): MessageGroupId = the message key (the correlationId),
 *   MessageDeduplicationId = the messageId. Default false (standard queues).
 * - `waitTimeMs`: long polling, 0–20,000 in whole seconds. Default 20,000.
 * - `visibilityTimeoutMs`: how long a received message stays hidden before SQS hands it
 *   out again if it is neither deleted nor nacked, in whole seconds. Default 30,000.
 * - `maxReceiveCount`: receives before SQS moves a message to the queue's DLQ queue
 *   (`<queue>-dlq`), from where it is handed over once more as `exhausted`. Default 10.
 * - `maxInflight`: deliveries handed out and not yet settled, per subscription. Default 64.
 */
export interface SqsTransportOptions extends Omit<SqsTransportConfig, 'credentials'> {
  readonly credentials?: SqsCredentials;
  readonly logger?: Logger;
  /** Failed deletes (commit), poll failures recovered (reconnect). */
  readonly metrics?: RpcMetrics;
  /** Loads `@aws-sdk/client-sqs`; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

/** In seconds, as the SQS API counts them. */
export interface ResolvedSqsOptions {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly credentials: SqsCredentials | undefined;
  readonly queuePrefix: string;
  readonly fifo: boolean;
  readonly waitTimeSeconds: number;
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
  readonly maxInflight: number;
  readonly metrics: RpcMetrics;
}

const field = (name: string): string => `sqsTransport: ${name}`;

export function resolveSqsOptions(options: SqsTransportOptions): ResolvedSqsOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('sqsTransport: options must be an object');
  if (options.endpoint !== undefined && !/^https?:\/\/./.test(options.endpoint)) throw new TypeError('sqsTransport: endpoint must be an http(s) URL');
  const prefix = options.queuePrefix ?? '';
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_-]*$/.test(prefix)) throw new TypeError('sqsTransport: queuePrefix may hold letters, digits, - and _ only');
  const waitTimeSeconds = wholeSeconds(options.waitTimeMs ?? 20_000, 'waitTimeMs');
  if (waitTimeSeconds > 20) throw new RangeError('sqsTransport: waitTimeMs is at most 20,000 (the SQS limit)');
  return {
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    credentials: options.credentials,
    queuePrefix: prefix,
    fifo: options.fifo ?? false,
    waitTimeSeconds,
    visibilityTimeoutSeconds: wholeSeconds(options.visibilityTimeoutMs ?? 30_000, 'visibilityTimeoutMs'),
    maxReceiveCount: positiveInteger(options.maxReceiveCount ?? 10, field('maxReceiveCount')),
    maxInflight: positiveInteger(options.maxInflight ?? 64, field('maxInflight')),
    metrics: options.metrics ?? noMetrics,
  };
}

/** Milliseconds given as whole seconds, in seconds. */
function wholeSeconds(ms: number | undefined, name: string): number {
  const value = nonNegativeInteger(ms, field(name));
  if (value % 1_000 !== 0) throw new RangeError(`${field(name)} must be whole seconds (a multiple of 1,000): SQS counts in seconds`);
  return value / 1_000;
}

export function loadSqs(loadModule?: () => Promise<unknown>): Promise<SqsModule> {
  return loadClientPackage<SqsModule>(loadModule ?? (() => import('@aws-sdk/client-sqs')), 'SQS', '@aws-sdk/client-sqs');
}
