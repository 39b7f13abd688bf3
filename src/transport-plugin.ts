import type { z } from 'zod';
import { URI_SCHEME_RE } from './envelope/index.js';
import type { Logger } from './logger.js';
import type { RpcMetrics } from './observability/index.js';
import type { SecretValue } from './secrets/index.js';
import type { RpcTransport } from './transport.js';

/**
 * A transport as a plug-in: one descriptor per transport folder (`transports/<kind>/plugin.ts`),
 * collected in one list (`transports/plugins.ts`) that the daemon and the CLI are given.
 * Config files are validated against the plug-ins' schemas; nothing in `src/` names a
 * transport kind.
 */
export interface TransportPluginContext {
  readonly agentId: string;
  /** Default client id (e.g. Kafka's): the agent id. */
  readonly clientId: string;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
  /** Resolves `…Ref` fields of the config (relative `file:` references against the config directory). */
  readonly resolveSecret: (ref: string) => Promise<SecretValue>;
  /** Per-process state shared by the agents of one daemon, keyed by kind (the memory bus lives here). */
  readonly shared: Map<string, unknown>;
}

// A list of plug-ins mixes config types; each plug-in is typed where it is defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface TransportPlugin<Config = any, Route = any> {
  /** Lower-case `[a-z][a-z0-9+.-]*`; also the replyTo scheme. */
  readonly kind: string;
  /** One line for docs. */
  readonly summary: string;
  /** capabilities.yaml `transports.<kind>`; the config type is z.infer of it. */
  readonly configSchema: z.ZodType<Config>;
  /** The fields of an rpc-peers.yaml route besides `kind` (a strict object). */
  readonly routeSchema: z.ZodType<Route>;
  /**
   * What list-form entries (the design documents' capabilities.yaml `transports: [{kind, ...}]`
   * and rpc-peers.yaml routes) call this kind's topics: `topics` (Kafka), `subjects` (NATS),
   * holding `{requests, responses}`. Unset: the kind has no topics in those entries.
   */
  readonly topicsField?: string;
  /**
   * Reaches only agents of the process it was created in (the in-process bus): another
   * process, such as the CLI, cannot reach a peer on it, so `rpc peers --verify` does not try.
   */
  readonly processLocal?: boolean;
  create(config: Config, context: TransportPluginContext): Promise<RpcTransport>;
  /** The topic a request to a peer on this route is published to, when the route says (default agents.<id>.requests). */
  requestsTopic?(route: Route): string | undefined;
  /** A peer route this agent's own connection cannot reach (other servers/brokers): the field and why; undefined when fine. */
  checkRoute?(route: Route, own: Config | undefined): { field: string; message: string } | undefined;
}

/** Throws TypeError when a list has a bad or repeated kind: a programming mistake, found at start. */
export function checkTransportPlugins(plugins: readonly TransportPlugin[]): readonly TransportPlugin[] {
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (typeof plugin?.kind !== 'string' || !URI_SCHEME_RE.test(plugin.kind)) throw new TypeError(`transport plug-in kind must match [a-z][a-z0-9+.-]*, got ${JSON.stringify(plugin?.kind)}`);
    if (seen.has(plugin.kind)) throw new TypeError(`two transport plug-ins of kind ${plugin.kind}`);
    seen.add(plugin.kind);
  }
  return plugins;
}

/** The plug-in of `kind`, or a TypeError naming the kinds there are. */
export function transportPluginOf(plugins: readonly TransportPlugin[], kind: string): TransportPlugin {
  const plugin = plugins.find((p) => p.kind === kind);
  if (!plugin) throw new TypeError(`no transport plug-in of kind ${kind} (loaded: ${plugins.map((p) => p.kind).join(', ') || 'none'})`);
  return plugin;
}
