import { checkGatewayPlugins, type GatewayPlugin } from '../gateway-plugin.js';
import { checkTransportPlugins, type TransportPlugin } from '../transport-plugin.js';

/**
 * What the config files need of a transport or gateway plug-in: its capabilities.yaml
 * `transports.<kind>` section and its rpc-peers.yaml route, and where the route sends requests.
 */
export type ConfigKind = Pick<TransportPlugin, 'kind' | 'configSchema' | 'routeSchema' | 'topicsField' | 'requestsTopic' | 'checkRoute'> & {
  /** A gateway: its section is optional, and it is no transport an agent can listen on. */
  readonly implicit?: boolean;
};

/**
 * The kinds the config files are checked against: every transport, then every gateway. A
 * gateway's section is optional (it serves every agent) and its route's address is where
 * its requests go. Throws TypeError for a bad or repeated kind: a programming mistake.
 */
export function configKinds({ transports, gateways }: { readonly transports: readonly TransportPlugin[]; readonly gateways: readonly GatewayPlugin[] }): readonly ConfigKind[] {
  checkTransportPlugins(transports);
  checkGatewayPlugins(gateways);
  for (const gateway of gateways) {
    if (transports.some((transport) => transport.kind === gateway.kind)) throw new TypeError(`a transport plug-in and a gateway plug-in of kind ${gateway.kind}`);
  }
  const asKind = (gateway: GatewayPlugin): ConfigKind => ({
    kind: gateway.kind,
    configSchema: gateway.configSchema,
    routeSchema: gateway.routeSchema,
    implicit: true,
    requestsTopic: (route) => gateway.addressOf(route),
  });
  return [...transports, ...gateways.map(asKind)];
}
