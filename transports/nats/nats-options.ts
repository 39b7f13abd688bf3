import type { ConnectionOptions } from 'nats';
import { positiveInteger } from '../../src/check-integer.js';
import type { Logger } from '../../src/logger.js';
import { noMetrics, type RpcMetrics } from '../../src/observability/index.js';
import type { natsDurableSchema, NatsTransportConfig } from './nats-config.js';
import type { z } from 'zod';
import { loadClientPackage } from '../shared/load-client-package.js';

export type NatsModule = typeof import('nats');

/**
 * JetStream settings (the fields of natsDurableSchema):
 * - `maxDeliver`: deliveries of one message before JetStream stops redelivering it. Default 5.
 * - `ackWaitMs`: how long JetStream waits for an ack before redelivering. Default 30,000 ms.
 * - `maxAgeMs`: how long a stream keeps messages. Default 24 h.
 * - `storage`: `file` (default) survives a server restart; `memory` does not.
 */
export interface DurableOptions extends z.infer<typeof natsDurableSchema> {
  /**
   * Which topics get a stream. Default: every topic, except ephemeral ones (published or
   * subscribed with `ephemeral`: per-instance reply topics), which never get one.
   */
  readonly topics?: (topic: string) => boolean;
}

/**
 * The options of natsConfigSchema (capabilities.yaml `transports.nats`), with what only code
 * can pass: nats.js connection options as objects, a logger, metrics.
 * - `servers`: `nats://host:port`, or several.
 * - `subjectPrefix`: prepended to every subject published or subscribed (e.g. `prod.`).
 * - `durable`: shared (group) subscriptions go through JetStream: a stream per subject, a
 *   durable consumer per group, explicit ack after dispatch. Fan-out subscriptions (replies)
 *   stay on core NATS. Default: core NATS only.
 * - `maxInflight`: deliveries handed out and not yet settled, per subscription. Default 1,024.
 * - `maxPending`: core NATS, messages held locally beyond maxInflight before they are dropped
 *   (a slow consumer). Default 65,536.
 * - `connectTimeoutMs`: how long `connect()` keeps trying to reach a server before it fails
 *   with EAGENTRPC_CONNECT_FAILED (refused TLS, wrong credentials, nothing listening). Once
 *   connected, the transport reconnects forever. Default 30,000 ms.
 */
export interface NatsTransportOptions extends Omit<NatsTransportConfig, 'servers' | 'durable' | 'connection'> {
  readonly servers: string | readonly string[];
  readonly durable?: boolean | DurableOptions;
  /** Passed to nats.js `connect` (credentials, TLS, name...). Reconnect settings are the transport's own. */
  readonly connection?: Omit<Partial<ConnectionOptions>, 'servers'>;
  readonly logger?: Logger;
  /** Drops (slow consumer, lost exhausted messages) and reconnects. Default: none. */
  readonly metrics?: RpcMetrics;
  /** Loads the `nats` package; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

export interface ResolvedNatsOptions {
  readonly servers: string[];
  readonly subjectPrefix: string;
  readonly durable: Required<DurableOptions> | undefined;
  readonly maxInflight: number;
  readonly maxPending: number;
  readonly connection: Omit<Partial<ConnectionOptions>, 'servers'>;
  readonly connectTimeoutMs: number;
  readonly metrics: RpcMetrics;
}

const field = (name: string): string => `natsTransport: ${name}`;

export function resolveNatsOptions(options: NatsTransportOptions): ResolvedNatsOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('natsTransport: options must be an object');
  const servers = typeof options.servers === 'string' ? [options.servers] : options.servers;
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('natsTransport: servers must be a URL or a non-empty list of URLs');
  }
  const prefix = options.subjectPrefix ?? '';
  if (typeof prefix !== 'string' || /[\s*>]/.test(prefix)) throw new TypeError('natsTransport: subjectPrefix must be a string without spaces or wildcards');
  const durableInput = options.durable === true ? {} : options.durable || undefined;
  const durable = durableInput && {
    maxDeliver: positiveInteger(durableInput.maxDeliver ?? 5, field('durable.maxDeliver')),
    ackWaitMs: positiveInteger(durableInput.ackWaitMs ?? 30_000, field('durable.ackWaitMs')),
    maxAgeMs: positiveInteger(durableInput.maxAgeMs ?? 24 * 60 * 60 * 1000, field('durable.maxAgeMs')),
    storage: durableInput.storage ?? 'file',
    topics: durableInput.topics ?? (() => true),
  };
  if (durable && durable.storage !== 'file' && durable.storage !== 'memory') throw new TypeError('natsTransport: durable.storage must be file or memory');
  return {
    servers: [...servers],
    subjectPrefix: prefix,
    durable,
    maxInflight: positiveInteger(options.maxInflight ?? 1024, field('maxInflight')),
    maxPending: positiveInteger(options.maxPending ?? 65_536, field('maxPending')),
    connection: options.connection ?? {},
    connectTimeoutMs: positiveInteger(options.connectTimeoutMs ?? 30_000, field('connectTimeoutMs')),
    metrics: options.metrics ?? noMetrics,
  };
}

export function loadNats(loadModule?: () => Promise<unknown>): Promise<NatsModule> {
  return loadClientPackage<NatsModule>(loadModule ?? (() => import('nats')), 'NATS', 'nats');
}
