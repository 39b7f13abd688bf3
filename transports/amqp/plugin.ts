import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { brokerPlugin } from '../shared/broker-plugin.js';
import { amqpConfigSchema, amqpRouteSchema, type AmqpRouteConfig, type AmqpTransportConfig } from './amqp-config.js';
import type { AmqpTransportOptions } from './amqp-options.js';
import { amqpTransport } from './amqp-transport.js';

/** The transport options a capabilities.yaml `transports.amqp` section stands for, secrets resolved. */
export async function amqpOptionsFromConfig(config: AmqpTransportConfig, context: Pick<TransportPluginContext, 'resolveSecret' | 'logger' | 'metrics'>): Promise<AmqpTransportOptions> {
  const { passwordRef, ...settings } = config;
  return {
    ...settings,
    password: passwordRef === undefined ? undefined : (await context.resolveSecret(passwordRef)).reveal(),
    logger: context.logger,
    metrics: context.metrics,
  };
}

/** Host, port and vhost: two URLs name the same broker whatever their credentials. */
function brokerOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '' ? '/' : parsed.pathname}`;
}

export const amqpTransportPlugin: TransportPlugin<AmqpTransportConfig, AmqpRouteConfig> = brokerPlugin({
  kind: 'amqp',
  summary: 'AMQP 0-9-1 (RabbitMQ): at least once, durable classic-queue inboxes, publisher confirms, dead-lettering to the DLQ',
  configSchema: amqpConfigSchema,
  topicsField: 'queues',
  routeSchema: amqpRouteSchema,
  optionsFromConfig: amqpOptionsFromConfig,
  transport: amqpTransport,
  endpoint: { field: 'url', of: (settings) => brokerOf(settings.url) },
});
