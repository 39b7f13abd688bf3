import type { AgentConfig, TransportsConfig } from '../config/index.js';
import type { Gateway } from '../gateway.js';
import type { GatewayPluginContext } from '../gateway-plugin.js';
import { noMetrics, type RpcMetrics } from '../observability/index.js';

/** What every gateway plug-in is given besides its routes; metrics default to none, the logger is narrowed per gateway. */
export type GatewayContext = Omit<GatewayPluginContext, 'metrics' | 'routes'> & { readonly metrics?: RpcMetrics };

/**
 * One gateway per gateway plug-in the config was loaded with, every agent: each is given
 * its capabilities.yaml section (empty when there is none) and the rpc-peers.yaml routes
 * of its kind.
 */
export async function gatewaysFromConfig(config: AgentConfig, context: GatewayContext): Promise<Gateway[]> {
  const sections = config.capabilities.value.transports;
  const routes = config.peers?.value.peers.flatMap((peer) => peer.transports) ?? [];
  const gateways: Gateway[] = [];
  for (const plugin of config.plugins.gateways) {
    const own = routes.filter((route) => route.kind === plugin.kind).map(({ kind: _kind, ...route }) => route);
    const logger = context.logger.child({ gateway: plugin.kind });
    gateways.push(await plugin.create(sections[plugin.kind] ?? {}, { ...context, logger, metrics: context.metrics ?? noMetrics, routes: own }));
  }
  return gateways;
}

/** capabilities.yaml `transports` without the gateways' sections: what the transports are created from. */
export function transportSections(config: AgentConfig): TransportsConfig {
  const gatewayKinds = new Set(config.plugins.gateways.map((plugin) => plugin.kind));
  return Object.fromEntries(Object.entries(config.capabilities.value.transports).filter(([kind]) => !gatewayKinds.has(kind)));
}
