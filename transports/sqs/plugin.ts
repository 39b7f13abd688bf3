import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { endpointMismatch, requestsTopicOf } from '../shared/topic-route.js';
import { sqsConfigSchema, sqsCredentialsFromConfig, sqsRouteSchema, type SqsRouteConfig, type SqsTransportConfig } from './sqs-config.js';
import type { SqsTransportOptions } from './sqs-options.js';
import { sqsTransport } from './sqs-transport.js';

/** The transport options a capabilities.yaml `transports.sqs` section stands for, secrets resolved. */
export async function sqsOptionsFromConfig(config: SqsTransportConfig, context: Pick<TransportPluginContext, 'resolveSecret' | 'logger' | 'metrics'>): Promise<SqsTransportOptions> {
  const { credentials, ...settings } = config;
  const resolved = await sqsCredentialsFromConfig(credentials, context.resolveSecret);
  return { ...settings, ...(resolved === undefined ? {} : { credentials: resolved }), logger: context.logger, metrics: context.metrics };
}

export const sqsTransportPlugin: TransportPlugin<SqsTransportConfig, SqsRouteConfig> = {
  kind: 'sqs',
  summary: 'Amazon SQS: a queue per inbox, at least once, delete after dispatch, redrive to a DLQ queue; no fan-out',
  configSchema: sqsConfigSchema,
  topicsField: 'queues',
  routeSchema: sqsRouteSchema,
  async create(config, context) {
    return sqsTransport(await sqsOptionsFromConfig(config, context));
  },
  requestsTopic: requestsTopicOf,
  checkRoute: (route, own) => endpointMismatch('sqs', 'endpoint', route.endpoint, own?.endpoint),
};
