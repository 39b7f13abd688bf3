import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { brokerPlugin } from '../shared/broker-plugin.js';
import { sqsConfigSchema, sqsCredentialsFromConfig, sqsRouteSchema, type SqsRouteConfig, type SqsTransportConfig } from './sqs-config.js';
import type { SqsTransportOptions } from './sqs-options.js';
import { sqsTransport } from './sqs-transport.js';

/** The transport options a capabilities.yaml `transports.sqs` section stands for, secrets resolved. */
export async function sqsOptionsFromConfig(config: SqsTransportConfig, context: Pick<TransportPluginContext, 'resolveSecret' | 'logger' | 'metrics'>): Promise<SqsTransportOptions> {
  const { credentials, ...settings } = config;
  const resolved = await sqsCredentialsFromConfig(credentials, context.resolveSecret);
  return { ...settings, ...(resolved === undefined ? {} : { credentials: resolved }), logger: context.logger, metrics: context.metrics };
}

export const sqsTransportPlugin: TransportPlugin<SqsTransportConfig, SqsRouteConfig> = brokerPlugin({
  kind: 'sqs',
  summary: 'Amazon SQS: a queue per inbox, at least once, delete after dispatch, redrive to a DLQ queue; no fan-out',
  configSchema: sqsConfigSchema,
  topicsField: 'queues',
  routeSchema: sqsRouteSchema,
  optionsFromConfig: sqsOptionsFromConfig,
  transport: sqsTransport,
  endpoint: { field: 'endpoint', of: (settings) => settings.endpoint },
});
