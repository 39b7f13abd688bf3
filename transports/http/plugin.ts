import { z } from 'zod';
import type { TransportPlugin } from '../../src/transport-plugin.js';
import { httpTransport } from './http-transport.js';

/** capabilities.yaml `transports.http`: nothing to set; where other nodes are is agent.yaml `remoteNodes`. */
export const httpConfigSchema = z.strictObject({});
export type HttpTransportConfig = z.infer<typeof httpConfigSchema>;

/** `node`: the remote node (agent.yaml `remoteNodes`, or the node store) whose session API serves this peer. */
export const httpRouteSchema = z.strictObject({ node: z.string().min(1).describe('The remote node (agent.yaml `remoteNodes`, or the node store) whose session API serves this peer.') });
export type HttpRouteConfig = z.infer<typeof httpRouteSchema>;

export const httpTransportPlugin: TransportPlugin<HttpTransportConfig, HttpRouteConfig> = {
  kind: 'http',
  summary: "agents on other nodes, called through their node's session API (outbound; inbound is the session API itself)",
  configSchema: httpConfigSchema,
  routeSchema: httpRouteSchema,
  // Every daemon agent can call remote nodes: no config section is needed.
  implicit: true,
  async create(_config, context) {
    return httpTransport({ ...(context.remoteNodes ? { resolver: context.remoteNodes } : {}), logger: context.logger });
  },
  // Over http the "topic" a request is published to is the remote node's name.
  requestsTopic: (route) => route.node,
};
