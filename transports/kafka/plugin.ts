import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { brokerPlugin } from '../shared/broker-plugin.js';
import { kafkaClientFromConfig, kafkaConfigSchema, kafkaRouteSchema, type KafkaRouteConfig, type KafkaTransportConfig } from './kafka-config.js';
import type { KafkaTransportOptions } from './kafka-options.js';
import { kafkaTransport } from './kafka-transport.js';

/** The transport options a capabilities.yaml `transports.kafka` section stands for, secrets resolved. */
export async function kafkaOptionsFromConfig(config: KafkaTransportConfig, context: Pick<TransportPluginContext, 'clientId' | 'resolveSecret' | 'logger' | 'metrics'>): Promise<KafkaTransportOptions> {
  const { client, ...settings } = config;
  return {
    clientId: context.clientId,
    ...settings,
    client: await kafkaClientFromConfig(client, context.resolveSecret),
    logger: context.logger,
    metrics: context.metrics,
  };
}

export const kafkaTransportPlugin: TransportPlugin<KafkaTransportConfig, KafkaRouteConfig> = brokerPlugin({
  kind: 'kafka',
  summary: 'Kafka: at least once, commits after dispatch, per-key order, per-instance reply topics',
  configSchema: kafkaConfigSchema,
  topicsField: 'topics',
  routeSchema: kafkaRouteSchema,
  optionsFromConfig: kafkaOptionsFromConfig,
  transport: kafkaTransport,
  endpoint: { field: 'brokers', of: (settings) => settings.brokers },
});
