import { z } from 'zod';
import type { GatewayPlugin } from '../../gateway-plugin.js';
import { a2aGateway } from './a2a-gateway.js';

/** capabilities.yaml `transports.a2a`: optional; every agent can call A2A peers without it. */
export const a2aConfigSchema = z.strictObject({
  cardTtlMs: z.int().min(0).optional().describe("How long a peer's fetched agent card is used before it is fetched again (and sooner after a failed call). Default 300,000."),
  pollIntervalMs: z.int().min(10).optional().describe("Between two polls of a task, for peers whose card does not offer streaming. Default 500."),
});
export type A2aGatewayConfig = z.infer<typeof a2aConfigSchema>;

/** rpc-peers.yaml `{kind: a2a, url, tokenRef?}`. */
export const a2aRouteSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' })
    .describe("The A2A agent's base URL (its card is at `/.well-known/agent-card.json` under it), or its card's own URL when that ends in `.json`."),
  tokenRef: z.string().min(1).optional().describe('A secret reference to a bearer token sent with every request to the peer, the card included (`${secret:…}`, `secret://…`, `${env:…}`).'),
});
export type A2aRouteConfig = z.infer<typeof a2aRouteSchema>;

export const a2aGatewayPlugin: GatewayPlugin<A2aGatewayConfig, A2aRouteConfig> = {
  kind: 'a2a',
  summary: 'agents that speak the A2A protocol (v1.0), called through their agent card (outbound)',
  configSchema: a2aConfigSchema,
  routeSchema: a2aRouteSchema,
  addressOf: (route) => route.url,
  async create(config, context) {
    return a2aGateway({
      routes: context.routes,
      resolveSecret: context.resolveSecret,
      logger: context.logger,
      ...(config.cardTtlMs === undefined ? {} : { cardTtlMs: config.cardTtlMs }),
      ...(config.pollIntervalMs === undefined ? {} : { pollIntervalMs: config.pollIntervalMs }),
    });
  },
};
