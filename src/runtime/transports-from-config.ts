import type { TransportsConfig } from '../config/transports-config.js';
import type { Logger } from '../observability/logger.js';
import { noMetrics, type RpcMetrics } from '../observability/metrics.js';
import type { SecretValue } from '../secrets/secret-value.js';
import type { RemoteNodeResolver } from '../remote-nodes/remote-node.js';
import { transportPluginOf, type TransportPlugin } from '../transport-plugin.js';
import type { RpcTransport } from '../transport.js';

export interface TransportContext {
  readonly agentId: string;
  readonly clientId: string;
  readonly logger: Logger;
  readonly metrics?: RpcMetrics;
  /** Resolves the config's `…Ref` fields (relative `file:` references against the config directory). */
  readonly resolveSecret: (ref: string) => Promise<SecretValue>;
  /** Agents of one process share it (the memory transport's in-process bus lives here). */
  readonly shared: Map<string, unknown>;
  /** The agent's remote nodes, for transports that call them (http). */
  readonly remoteNodes?: RemoteNodeResolver;
}

/**
 * One transport per configured kind, created by its plug-in, in the order of the plug-in
 * list; broker client packages load only when a kind is configured.
 */
export async function transportsFromConfig(config: TransportsConfig, plugins: readonly TransportPlugin[], context: TransportContext): Promise<RpcTransport[]> {
  for (const kind of Object.keys(config)) transportPluginOf(plugins, kind);
  const transports: RpcTransport[] = [];
  for (const plugin of plugins) {
    const section = config[plugin.kind] ?? (plugin.implicit ? {} : undefined);
    if (section === undefined) continue;
    const { agentId, clientId, resolveSecret, shared, remoteNodes } = context;
    const logger = context.logger.child({ transport: plugin.kind });
    transports.push(await plugin.create(section, { agentId, clientId, resolveSecret, shared, logger, metrics: context.metrics ?? noMetrics, ...(remoteNodes ? { remoteNodes } : {}) }));
  }
  return transports;
}
