import type { TransportsConfig } from '../config/index.js';
import { noMetrics, type RpcMetrics } from '../observability/index.js';
import { transportPluginOf, type TransportPlugin, type TransportPluginContext } from '../transport-plugin.js';
import type { RpcTransport } from '../transport.js';

/** What every plug-in is given; metrics default to none, the logger is narrowed per transport. */
export type TransportContext = Omit<TransportPluginContext, 'metrics'> & { readonly metrics?: RpcMetrics };

/**
 * One transport per configured kind, created by its plug-in, in the order of the plug-in
 * list; broker client packages load only when a kind is configured.
 */
export async function transportsFromConfig(config: TransportsConfig, plugins: readonly TransportPlugin[], context: TransportContext): Promise<RpcTransport[]> {
  for (const kind of Object.keys(config)) transportPluginOf(plugins, kind);
  const transports: RpcTransport[] = [];
  for (const plugin of plugins) {
    const section = config[plugin.kind];
    if (section === undefined) continue;
    const logger = context.logger.child({ transport: plugin.kind });
    transports.push(await plugin.create(section, { ...context, logger, metrics: context.metrics ?? noMetrics }));
  }
  return transports;
}
