import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { endpointMismatch, requestsTopicOf } from '../shared/topic-route.js';
import { natsConfigSchema, natsConnectionFromConfig, natsRouteSchema, type NatsRouteConfig, type NatsTransportConfig } from './nats-config.js';
import { loadNats, type NatsTransportOptions } from './nats-options.js';
import { natsTransport } from './nats-transport.js';

/** The transport options a capabilities.yaml `transports.nats` section stands for, secrets resolved. */
export async function natsOptionsFromConfig(config: NatsTransportConfig, context: Pick<TransportPluginContext, 'resolveSecret' | 'logger' | 'metrics'>): Promise<NatsTransportOptions> {
  const { connection, ...settings } = config;
  return {
    ...settings,
    connection: await natsConnectionFromConfig(connection, context.resolveSecret, () => loadNats()),
    logger: context.logger,
    metrics: context.metrics,
  };
}

export const natsTransportPlugin: TransportPlugin<NatsTransportConfig, NatsRouteConfig> = {
  kind: 'nats',
  summary: 'NATS: core (lowest latency) or JetStream durable inboxes (at least once)',
  configSchema: natsConfigSchema,
  topicsField: 'subjects',
  routeSchema: natsRouteSchema,
  async create(config, context) {
    return natsTransport(await natsOptionsFromConfig(config, context));
  },
  requestsTopic: requestsTopicOf,
  checkRoute: (route, own) => endpointMismatch('nats', 'servers', route.servers, own?.servers),
};
