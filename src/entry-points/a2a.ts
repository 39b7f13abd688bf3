/** `agent-rpc/a2a`: the `a2a` gateway, calling A2A (v1.0) agents as peers (docs/a2a.md#calling-a2a-agents). */
export { a2aGateway, type A2aGatewayOptions } from '../a2a/client/a2a-gateway.js';
export { a2aConfigSchema, a2aGatewayPlugin, a2aRouteSchema, type A2aGatewayConfig, type A2aRouteConfig } from '../a2a/client/plugin.js';
