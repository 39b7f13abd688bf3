export { sqsTransport } from './sqs-transport.js';
export type { SqsCredentials, SqsTransportOptions } from './sqs-options.js';
export { sqsTransportPlugin, sqsOptionsFromConfig } from './plugin.js';
export { queueName as sqsQueueName } from './sqs-queues.js';
export { sqsConfigSchema, sqsRouteSchema, sqsCredentialsFromConfig, type SqsTransportConfig, type SqsCredentialsConfig, type SqsRouteConfig } from './sqs-config.js';
