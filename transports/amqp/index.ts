export { amqpTransport } from './amqp-transport.js';
export type { AmqpTransportOptions } from './amqp-options.js';
export { amqpTransportPlugin, amqpOptionsFromConfig } from './plugin.js';
export { amqpConfigSchema, amqpRouteSchema, type AmqpTransportConfig, type AmqpRouteConfig } from './amqp-config.js';
