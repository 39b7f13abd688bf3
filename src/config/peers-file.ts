import { dirname } from 'node:path';
import { z } from 'zod';
import { AGENT_URI_RE, isAgentId } from '../envelope/index.js';
import type { Clock } from '../clock.js';
import type { PeerEntry } from '../rpc/index.js';
import type { SecretValue } from '../secrets/index.js';
import type { ConfigKind } from './config-kinds.js';
import { alias, loadYamlFile, parseYaml, type LoadedYaml } from '../yaml/index.js';
import { peerAuthSchema } from './auth-config.js';
import { buildPeerAuth } from './build-auth.js';

const peerIdSchema = z.string().refine((id) => AGENT_URI_RE.test(id) || isAgentId(id), 'must be agent://<id> or a bare agent id');

/** What the peer table needs of a transport: its route fields and how they name a topic. */
export type PeerRouteKind = Pick<ConfigKind, 'kind' | 'routeSchema' | 'requestsTopic' | 'checkRoute' | 'topicsField'>;

/**
 * The design documents' form of a route's topic: `topics: { requests }` (`subjects:` for
 * NATS), the same setting as the plug-in's own field (`requestsTopic`). A peer's replies come
 * to this agent's own responses topic, so a route names only where requests go.
 */
const listedRequestsSchema = z
  .strictObject({ requests: z.string().min(1).describe("The peer's inbox topic; the same as `requestsTopic`.") })
  .optional()
  .describe("The design documents' form of `requestsTopic`: `{ requests: <topic> }`.");

/** One route of rpc-peers.yaml: `kind` plus the fields that plug-in's routeSchema allows. */
function routeSchema(kinds: readonly PeerRouteKind[]) {
  const options = kinds.map((route) => {
    if (!(route.routeSchema instanceof z.ZodObject)) throw new TypeError(`transport ${route.kind}: routeSchema must be a zod object`);
    const field = route.topicsField;
    if (field === undefined) return route.routeSchema.extend({ kind: z.literal(route.kind) });
    return route.routeSchema.extend({ kind: z.literal(route.kind), [field]: listedRequestsSchema }).superRefine((value: Record<string, unknown>, ctx) => {
      const listed = (value[field] as { requests?: string } | undefined)?.requests;
      const own = route.requestsTopic?.(value);
      if (listed !== undefined && own !== undefined) ctx.addIssue({ code: 'custom', path: [field, 'requests'], message: 'is the same setting as the route\'s requestsTopic, which is also given: keep one' });
    });
  });
  return z.discriminatedUnion('kind', options as [z.ZodObject<{ kind: z.ZodLiteral<string> }>, ...Array<z.ZodObject<{ kind: z.ZodLiteral<string> }>>]);
}

/** rpc-peers.yaml (version 1), with route kinds from the loaded transport and gateway plug-ins. */
export function peersFileSchema(transports: readonly PeerRouteKind[]) {
  return z.strictObject({
    version: z.literal(1).describe('The file format version.'),
    peers: z
      .array(
        z.strictObject({
          id: alias(peerIdSchema.describe('The peer: `agent://<id>` or a bare agent id.'), 'agent'),
          tenantId: z.string().min(1).optional().describe("The peer's tenant, set on envelopes to it."),
          transports: z
            .array(routeSchema(transports))
            .min(1)
            .describe('Routes to the peer, in order of preference: the first kind this agent has loaded is used. Each kind has its own fields (see the transports section).'),
          auth: peerAuthSchema.optional().describe('How this agent authenticates to the peer, and checks what it sends (docs/auth.md). Default: internal.'),
        }),
      )
      .describe('The agents this agent calls, and how to reach them.'),
  });
}
/** A route as read: its `kind` and that transport's own fields. */
export type PeerRouteConfig = { readonly kind: string } & Readonly<Record<string, unknown>>;
export interface PeersFile {
  readonly version: 1;
  readonly peers: ReadonlyArray<{
    readonly id: string;
    readonly tenantId?: string | undefined;
    readonly transports: readonly PeerRouteConfig[];
    readonly auth?: z.infer<typeof peerAuthSchema> | undefined;
  }>;
}

export interface PeersFileOptions {
  /** The transport and gateway plug-ins whose routes peers may use (configKinds). */
  readonly transports: readonly PeerRouteKind[];
  /** Resolves `...Ref` fields; relative `file:` references resolve against the file's directory. */
  readonly resolveSecret: (ref: string, baseDir: string) => Promise<SecretValue>;
  readonly clock?: Clock;
}

/** Reads `rpc-peers.yaml` (version 1) into peer entries, auth providers built and secrets resolved. */
export async function loadPeersFile(file: string, options: PeersFileOptions): Promise<PeerEntry[]> {
  return toPeerEntries(await loadYamlFile(file, peersFileSchema(options.transports)), options);
}

export async function parsePeersFile(file: string, text: string, options: PeersFileOptions): Promise<PeerEntry[]> {
  return toPeerEntries(parseYaml(file, text, peersFileSchema(options.transports)), options);
}

/** The topic a route names for its requests, as its plug-in reads it; undefined: the default. */
export function routeRequestsTopic(kinds: readonly PeerRouteKind[], route: PeerRouteConfig): string | undefined {
  const kind = kinds.find((plugin) => plugin.kind === route.kind);
  const listed = kind?.topicsField === undefined ? undefined : (route[kind.topicsField] as { requests?: string } | undefined)?.requests;
  return listed ?? kind?.requestsTopic?.(route);
}

export async function toPeerEntries(loaded: LoadedYaml<PeersFile>, options: PeersFileOptions): Promise<PeerEntry[]> {
  const baseDir = dirname(loaded.file);
  const kinds = options.transports;
  return Promise.all(
    loaded.value.peers.map(async (peer, index): Promise<PeerEntry> => {
      const routes = peer.transports.map((route) => {
        const topic = routeRequestsTopic(kinds, route);
        return { kind: route.kind, ...(topic ? { requestsTopic: topic } : {}) };
      });
      const entry: PeerEntry = { id: peer.id, routes, ...(peer.tenantId ? { tenantId: peer.tenantId } : {}) };
      if (peer.auth === undefined) return entry;
      const auth = await buildPeerAuth(peer.auth, {
        resolveSecret: (ref) => options.resolveSecret(ref, baseDir),
        file: loaded.file,
        field: `peers[${index}].auth`,
        lineOf: (field) => loaded.lineOf(['peers', index, 'auth', field]),
        clock: options.clock,
      });
      return { ...entry, auth };
    }),
  );
}
