/** `agent-rpc/http`: the `http` gateway, calling agents on other nodes through their session API (docs/gateways/http.md). */
export { httpGateway, type HttpGatewayOptions } from '../remote-nodes/http-gateway/http-gateway.js';
export { httpConfigSchema, httpGatewayPlugin, httpRouteSchema, type HttpGatewayConfig, type HttpRouteConfig } from '../remote-nodes/http-gateway/plugin.js';
