/** The `http` gateway: calls to peers on other nodes, through their session API. */
export { httpGateway, type HttpGatewayOptions } from './http-gateway.js';
export { httpConfigSchema, httpGatewayPlugin, httpRouteSchema, type HttpGatewayConfig, type HttpRouteConfig } from './plugin.js';
