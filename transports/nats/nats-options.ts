import type { ConnectionOptions } from 'nats';
import { RpcError } from '../../src/errors.js';
import type { Logger } from '../../src/observability/logger.js';
import { isInstanceReplyTopic } from '../../src/rpc/topics.js';

export type NatsModule = typeof import('nats');

export interface DurableOptions {
  /** Deliveries of one message before JetStream stops redelivering it. Default 5. */
  readonly maxDeliver?: number;
  /** How long JetStream waits for an ack before redelivering. Default 30,000 ms. */
  readonly ackWaitMs?: number;
  /** How long a stream keeps messages. Default 24 h. */
  readonly maxAgeMs?: number;
  /** `file` (default) survives a server restart; `memory` does not. */
  readonly storage?: 'file' | 'memory';
  /**
   * Which topics get a stream. Default: every topic except per-instance reply topics
   * (`….responses.<instanceId>`), which live only as long as their instance.
   */
  readonly topics?: (topic: string) => boolean;
}


export interface NatsTransportOptions {
  /** `nats://host:port`, or several. */
  readonly servers: string | readonly string[];
  /** Prepended to every subject published or subscribed (e.g. `prod.`). */
  readonly subjectPrefix?: string;
  /**
   * Shared (group) subscriptions go through JetStream: a stream per subject, a durable
   * consumer per group, explicit ack after dispatch. Fan-out subscriptions (replies) stay
   * on core NATS. Default: core NATS only.
   */
  readonly durable?: boolean | DurableOptions;
  /** Deliveries handed out and not yet settled, per subscription. Default 1,024. */
  readonly maxInflight?: number;
  /** Core NATS: messages held locally beyond maxInflight before they are dropped (a slow consumer). Default 65,536. */
  readonly maxPending?: number;
  /** Passed to nats.js `connect` (credentials, TLS, name...). Reconnect settings are the transport's own. */
  readonly connection?: Omit<Partial<ConnectionOptions>, 'servers'>;
  /**
   * How long `connect()` keeps trying to reach a server before it fails with
   * EAGENTRPC_CONNECT_FAILED (refused TLS, wrong credentials, nothing listening). Once
   * connected, the transport reconnects forever. Default 30,000 ms.
   */
  readonly connectTimeoutMs?: number;
  readonly logger?: Logger;
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
}

function positiveInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`natsTransport: ${field} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

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
    maxDeliver: positiveInt(durableInput.maxDeliver ?? 5, 'durable.maxDeliver'),
    ackWaitMs: positiveInt(durableInput.ackWaitMs ?? 30_000, 'durable.ackWaitMs'),
    maxAgeMs: positiveInt(durableInput.maxAgeMs ?? 24 * 60 * 60 * 1000, 'durable.maxAgeMs'),
    storage: durableInput.storage ?? 'file',
    topics: durableInput.topics ?? ((topic: string) => !isInstanceReplyTopic(topic)),
  };
  if (durable && durable.storage !== 'file' && durable.storage !== 'memory') throw new TypeError('natsTransport: durable.storage must be file or memory');
  return {
    servers: [...servers],
    subjectPrefix: prefix,
    durable,
    maxInflight: positiveInt(options.maxInflight ?? 1024, 'maxInflight'),
    maxPending: positiveInt(options.maxPending ?? 65_536, 'maxPending'),
    connection: options.connection ?? {},
    connectTimeoutMs: positiveInt(options.connectTimeoutMs ?? 30_000, 'connectTimeoutMs'),
  };
}

export async function loadNats(loadModule?: () => Promise<unknown>): Promise<NatsModule> {
  try {
    return (await (loadModule ?? (() => import('nats')))()) as NatsModule;
  } catch (cause) {
    throw new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the NATS transport needs the nats package: run `npm install nats`', { cause });
  }
}
