export { a2aTransport, type A2aTransportOptions } from './a2a-transport.js';
export { a2aConfigSchema, a2aRouteSchema, a2aTransportPlugin, type A2aRouteConfig, type A2aTransportConfig } from './plugin.js';
