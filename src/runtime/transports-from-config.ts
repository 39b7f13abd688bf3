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
  /** Set by the daemon and the CLI: every agent also gets the `http` transport, to call remote nodes (`resolver`). */
  readonly http?: { readonly resolver: RemoteNodeResolver };
}

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
    const { agentId, clientId, resolveSecret, shared } = context;
    transports.push(await plugin.create(section, { agentId, clientId, resolveSecret, shared, logger: context.logger.child({ transport: plugin.kind }), metrics: context.metrics ?? noMetrics }));
  }
  if (context.http) {
    const { httpTransport } = await import('../../transports/http/index.js');
    transports.push(httpTransport({ resolver: context.http.resolver, logger: context.logger.child({ transport: 'http' }) }));
  }
  return transports;
}
