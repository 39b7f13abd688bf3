import { z } from 'zod';
import type { GatewayPlugin } from '../../gateway-plugin.js';
import { httpGateway } from './http-gateway.js';

/** capabilities.yaml `transports.http`: nothing to set; where other nodes are is agent.yaml `remoteNodes`. */
export const httpConfigSchema = z.strictObject({});
export type HttpGatewayConfig = z.infer<typeof httpConfigSchema>;

/** `node`: the remote node (agent.yaml `remoteNodes`, or the node store) whose session API serves this peer. */
export const httpRouteSchema = z.strictObject({ node: z.string().min(1).describe('The remote node (agent.yaml `remoteNodes`, or the node store) whose session API serves this peer.') });
export type HttpRouteConfig = z.infer<typeof httpRouteSchema>;

export const httpGatewayPlugin: GatewayPlugin<HttpGatewayConfig, HttpRouteConfig> = {
  kind: 'http',
  summary: "agents on other nodes, called through their node's session API (outbound; inbound is the session API itself)",
  configSchema: httpConfigSchema,
  routeSchema: httpRouteSchema,
  addressOf: (route) => route.node,
  async create(_config, context) {
    return httpGateway({ ...(context.remoteNodes ? { resolver: context.remoteNodes } : {}), logger: context.logger });
  },
};
