import type { BrokerEndpoint } from '../../src/transport.js';

/**
 * The broker each transport names on its spans (RpcTransport.brokerEndpoint): built once per
 * connection from what the client says or, where it says nothing, from the configuration.
 */

const NATS_PORTS = { nats: 4222, tls: 4222 };
const MQTT_PORTS = { mqtt: 1883, mqtts: 8883, tcp: 1883, ssl: 8883, ws: 80, wss: 443 };
const AMQP_PORTS = { amqp: 5672, amqps: 5671 };
const HTTP_PORTS = { http: 80, https: 443 };

/** nats.js's current server (`host:port`, `getServer()`), else the first configured (`nats://host:port` or `host:port`). */
export function natsEndpoint(current: string, firstConfigured: string): BrokerEndpoint | undefined {
  if (current.length > 0) return endpointOfUrl(`nats://${current}`, NATS_PORTS);
  return endpointOfUrl(firstConfigured.includes('://') ? firstConfigured : `nats://${firstConfigured}`, NATS_PORTS);
}

/** MQTT.js's current server (its `options.host` / `options.port` once connected), else the configured URL. */
export function mqttEndpoint(host: string | undefined, port: number | undefined, url: string): BrokerEndpoint | undefined {
  return host ? { address: unbracketed(host), port } : endpointOfUrl(url, MQTT_PORTS);
}

/** kafkajs does not say which broker it bootstrapped from: the first listed (`host:port`). */
export function kafkaEndpoint(firstBroker: string): BrokerEndpoint | undefined {
  return endpointOfUrl(`kafka://${firstBroker}`, {});
}

/** The transport's one URL (rabbitmq-client does not say which address it reached). */
export function amqpEndpoint(url: string): BrokerEndpoint | undefined {
  return endpointOfUrl(url, AMQP_PORTS);
}

/** The configured endpoint (ElasticMQ, a VPC endpoint), else AWS's for the region. */
export function sqsEndpoint(endpoint: string | undefined, region: string): BrokerEndpoint | undefined {
  return endpointOfUrl(endpoint ?? `https://sqs.${region}.amazonaws.com`, HTTP_PORTS);
}

/**
 * The server a URL names, with the scheme's default port when it gives none. Undefined for
 * a URL that does not parse: spans then name no server rather than a wrong one.
 */
function endpointOfUrl(url: string, defaultPorts: Readonly<Record<string, number>>): BrokerEndpoint | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const address = unbracketed(parsed.hostname);
  if (address.length === 0) return undefined;
  const port = parsed.port === '' ? defaultPorts[parsed.protocol.slice(0, -1)] : Number(parsed.port);
  return { address, port };
}

/** `[::1]` → `::1`: server.address is the bare IP address. */
function unbracketed(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
