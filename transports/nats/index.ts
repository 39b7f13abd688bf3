export { natsTransport } from './nats-transport.js';
export type { DurableOptions, NatsTransportOptions } from './nats-options.js';
export { natsTransportPlugin, natsOptionsFromConfig } from './plugin.js';
export { natsConfigSchema, natsRouteSchema, natsConnectionFromConfig, type NatsTransportConfig, type NatsConnectionConfig, type NatsRouteConfig } from './nats-config.js';
