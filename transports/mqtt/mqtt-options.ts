import { hostname } from 'node:os';
import { nonNegativeInteger, positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { noMetrics, type RpcMetrics } from '../../src/observability/index.js';
import type { MqttTransportConfig } from './mqtt-config.js';
import { loadClientPackage } from '../shared/load-client-package.js';

export type MqttModule = typeof import('mqtt');

/**
 * The options of mqttConfigSchema (capabilities.yaml `transports.mqtt`), with what only code
 * can pass: the password as text, a logger, metrics.
 * - `url`: the broker, `mqtt://host:port` (or mqtts, ws, wss).
 * - `clientId`: names the persistent session. Two connections with one id take the session
 *   from each other, so replicas need distinct ids; a replica that keeps its id across
 *   restarts gets what was queued for it while it was away. Default `agent-rpc@<host name>`
 *   (from config: `<agent id>@<host name>`).
 * - `topicPrefix`: prepended to every MQTT topic. Default none.
 * - `sessionExpiryS`: how long the broker keeps the session after a disconnect. Default 86,400.
 * - `receiveMaximum`: unacked QoS 1 messages the broker may send at once. Default 65,535.
 * - `maxInflight`: deliveries handed out and not yet settled, per subscription. Default 1,024.
 * - `connectTimeoutMs`: how long `connect()` tries before EAGENTRPC_CONNECT_FAILED. Once
 *   connected, the client reconnects forever. Default 30,000.
 * - `keepaliveS`: MQTT keep-alive. Default 30.
 */
export interface MqttTransportOptions extends Omit<MqttTransportConfig, 'passwordRef'> {
  readonly password?: string;
  readonly logger?: Logger;
  /** Reconnects and messages for closed subscriptions. Default: none. */
  readonly metrics?: RpcMetrics;
  /** Loads the `mqtt` package; replaceable so the missing-package path can be tested. */
  readonly loadModule?: () => Promise<unknown>;
}

export interface ResolvedMqttOptions {
  readonly url: string;
  readonly clientId: string;
  readonly topicPrefix: string;
  readonly sessionExpiryS: number;
  readonly receiveMaximum: number;
  readonly maxInflight: number;
  readonly connectTimeoutMs: number;
  readonly keepaliveS: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly metrics: RpcMetrics;
}

const field = (name: string): string => `mqttTransport: ${name}`;
const WILDCARDS = /[+#]/;

export function resolveMqttOptions(options: MqttTransportOptions): ResolvedMqttOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('mqttTransport: options must be an object');
  if (typeof options.url !== 'string' || !/^(mqtts?|wss?|tcp|ssl):\/\//.test(options.url)) throw new TypeError('mqttTransport: url must be an mqtt://, mqtts://, ws:// or wss:// URL');
  const clientId = options.clientId ?? `agent-rpc@${hostname()}`;
  if (typeof clientId !== 'string' || clientId.length === 0) throw new TypeError('mqttTransport: clientId must be a non-empty string');
  const topicPrefix = options.topicPrefix ?? '';
  if (typeof topicPrefix !== 'string' || WILDCARDS.test(topicPrefix) || topicPrefix.startsWith('$')) throw new TypeError('mqttTransport: topicPrefix must not hold wildcards (+ #) or start with $');
  const receiveMaximum = positiveInteger(options.receiveMaximum ?? 65_535, field('receiveMaximum'));
  if (receiveMaximum > 65_535) throw new RangeError('mqttTransport: receiveMaximum must be at most 65,535');
  return {
    url: options.url,
    clientId,
    topicPrefix,
    sessionExpiryS: nonNegativeInteger(options.sessionExpiryS ?? 86_400, field('sessionExpiryS')),
    receiveMaximum,
    maxInflight: positiveInteger(options.maxInflight ?? 1024, field('maxInflight')),
    connectTimeoutMs: positiveInteger(options.connectTimeoutMs ?? 30_000, field('connectTimeoutMs')),
    keepaliveS: nonNegativeInteger(options.keepaliveS ?? 30, field('keepaliveS')),
    username: options.username,
    password: options.password,
    metrics: options.metrics ?? noMetrics,
  };
}

/**
 * Topic names map to MQTT topics by turning dots into level separators, behind the prefix:
 * `agents.billing.requests` is `agents/billing/requests`, so MQTT tools can watch
 * `agents/+/requests`. Wildcards are refused: a topic is one name, never a filter.
 */
export function mqttTopicOf(prefix: string, topic: string): string {
  if (WILDCARDS.test(topic) || topic.startsWith('$')) throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `mqtt topic ${JSON.stringify(topic)} holds a wildcard (+ #) or starts with $`);
  return prefix + topic.replaceAll('.', '/');
}

/** A group as a share name: `$share/<name>/<topic>` allows no `/`, `+` or `#` in it. */
export function shareNameOf(group: string): string {
  return group.replace(/[/+#]/g, '_');
}

export function loadMqtt(loadModule?: () => Promise<unknown>): Promise<MqttModule> {
  return loadClientPackage<MqttModule>(loadModule ?? (() => import('mqtt')), 'MQTT', 'mqtt', (module) => typeof module.connect === 'function');
}
