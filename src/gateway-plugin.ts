import type { z } from 'zod';
import { URI_SCHEME_RE } from './envelope/index.js';
import type { Gateway } from './gateway.js';
import type { Logger } from './logger.js';
import type { RpcMetrics } from './observability/index.js';
import type { RemoteNodeResolver } from './remote-nodes/index.js';
import type { SecretValue } from './secrets/index.js';

/** What a gateway plug-in is given to create an agent's gateway. */
export interface GatewayPluginContext<Route = unknown> {
  readonly agentId: string;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
  /** Resolves `…Ref` fields (relative `file:` references against the config directory). */
  readonly resolveSecret: (ref: string) => Promise<SecretValue>;
  /** The agent's remote nodes (agent.yaml `remoteNodes` and the node store). */
  readonly remoteNodes?: RemoteNodeResolver;
  /** The rpc-peers.yaml routes of this gateway's kind (their per-peer settings: a2a's token). */
  readonly routes: readonly Route[];
}

/**
 * A gateway as a plug-in: one descriptor per gateway, collected in one list
 * (`builtinGateways`, src/gateways.ts) that the daemon and the CLI are given besides the
 * transports. Every agent gets one gateway of each kind; rpc-peers.yaml routes of its kind
 * are checked against its schema.
 */
// A list of plug-ins mixes config types; each plug-in is typed where it is defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface GatewayPlugin<Config = any, Route = any> {
  /** Lower-case `[a-z][a-z0-9+.-]*`: the rpc-peers.yaml route kind and its calls' replyTo scheme. */
  readonly kind: string;
  /** One line for docs. */
  readonly summary: string;
  /** capabilities.yaml `transports.<kind>`, optional: settings of the gateway (a strict object). */
  readonly configSchema: z.ZodType<Config>;
  /** The fields of an rpc-peers.yaml route besides `kind` (a strict object). */
  readonly routeSchema: z.ZodType<Route>;
  /** Where a route's peer is, as the gateway addresses it (a remote node's name, an A2A agent's URL). */
  addressOf(route: Route): string;
  create(config: Config, context: GatewayPluginContext<Route>): Promise<Gateway>;
}

/** Throws TypeError when a list has a bad or repeated kind: a programming mistake, found at start. */
export function checkGatewayPlugins(plugins: readonly GatewayPlugin[]): readonly GatewayPlugin[] {
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (typeof plugin?.kind !== 'string' || !URI_SCHEME_RE.test(plugin.kind)) throw new TypeError(`gateway plug-in kind must match [a-z][a-z0-9+.-]*, got ${JSON.stringify(plugin?.kind)}`);
    if (seen.has(plugin.kind)) throw new TypeError(`two gateway plug-ins of kind ${plugin.kind}`);
    seen.add(plugin.kind);
  }
  return plugins;
}
