/** A2A: the one mapping between envelopes and A2A objects (both halves use it) and the client half, the `a2a` gateway; the server half is `server/`. Docs: docs/gateways/a2a.md, docs/a2a.md. */
export { AGENT_CARD_PATH, dataPart, textOf, textPart } from './a2a-mapping.js';
export { a2aGateway, type A2aGatewayOptions } from './client/a2a-gateway.js';
export { a2aConfigSchema, a2aGatewayPlugin, a2aRouteSchema, type A2aGatewayConfig, type A2aRouteConfig } from './client/plugin.js';
