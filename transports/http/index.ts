export { httpTransport, type HttpTransportOptions } from './http-transport.js';
export { httpConfigSchema, httpRouteSchema, httpTransportPlugin, type HttpRouteConfig, type HttpTransportConfig } from './plugin.js';
