import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { brokerPlugin } from '../shared/broker-plugin.js';
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

export const natsTransportPlugin: TransportPlugin<NatsTransportConfig, NatsRouteConfig> = brokerPlugin({
  kind: 'nats',
  summary: 'NATS: core (lowest latency) or JetStream durable inboxes (at least once)',
  configSchema: natsConfigSchema,
  topicsField: 'subjects',
  routeSchema: natsRouteSchema,
  optionsFromConfig: natsOptionsFromConfig,
  transport: natsTransport,
  endpoint: { field: 'servers', of: (settings) => settings.servers },
});
