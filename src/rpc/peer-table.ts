import type { AuthProvider } from '../auth/index.js';
import { agentIdOf, agentUri, URI_SCHEME_RE } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { TransportKind } from '../transport.js';
import type { Outbound } from './outbound.js';
import { defaultAgentTopics } from './topics.js';

/** One way to reach a peer; the first route whose transport or gateway is loaded is used. */
export interface PeerRoute {
  readonly kind: TransportKind;
  /** Default `agents.<id>.requests` (tenant-scoped when the peer has a tenantId). For a gateway: the peer's address (node name, URL). */
  readonly requestsTopic?: string;
}

export interface PeerEntry {
  /** `agent://<id>` or the bare id. */
  readonly id: string;
  readonly routes: readonly PeerRoute[];
  readonly tenantId?: string;
  /** Signs what is sent to this peer and verifies what it sends. Default: the node's provider. */
  readonly auth?: AuthProvider;
}

export interface ResolvedPeer {
  readonly uri: string;
  /** The transport or gateway the call goes out on. */
  readonly outbound: Outbound;
  /** The topic (transport) or the peer's address (gateway). */
  readonly topic: string;
  readonly tenantId: string | undefined;
  readonly auth: AuthProvider | undefined;
}

interface PeerRecord {
  readonly entry: PeerEntry;
  readonly uri: string;
  /** Explicit request topic per transport kind; undefined means the default for the tenant. */
  readonly topics: ReadonlyMap<TransportKind, string | undefined>;
  /** The last resolution, for the same transports and tenant (a node asks with the same ones on every call). */
  resolved?: { readonly outbound: ReadonlyMap<TransportKind, Outbound>; readonly defaultTenant: string | undefined; readonly peer: ResolvedPeer };
}

/** Producer-side routing: resolves `agent://<id>` to a loaded transport and a topic, or a gateway and an address. */
export class PeerTable {
  private readonly peers = new Map<string, PeerRecord>();

  constructor(entries: readonly PeerEntry[] = []) {
    for (const [index, entry] of entries.entries()) this.add(entry, `peers[${index}]`);
  }

  add(entry: PeerEntry, field = 'peer'): void {
    if (typeof entry?.id !== 'string' || entry.id.length === 0) throw new TypeError(`${field}.id must be an agent id or agent:// URI`);
    const uri = normalizeAgentUri(entry.id);
    if (!Array.isArray(entry.routes) || entry.routes.length === 0) throw new TypeError(`${field}.routes must list at least one transport`);
    const topics = new Map<TransportKind, string | undefined>();
    entry.routes.forEach((route, i) => {
      if (typeof route.kind !== 'string' || !URI_SCHEME_RE.test(route.kind)) {
        throw new TypeError(`${field}.routes[${i}].kind must be a transport kind ([a-z][a-z0-9+.-]*)`);
      }
      if (!topics.has(route.kind)) {
        topics.set(route.kind, route.requestsTopic);
      }
    });
    this.peers.set(uri, { entry, uri, topics });
  }

  get(uri: string): PeerEntry | undefined {
    return this.peers.get(uri)?.entry;
  }

  entries(): PeerEntry[] {
    return [...this.peers.values()].map((p) => p.entry);
  }

  /**
   * Throws RpcError EAGENTRPC_NO_PEER / EAGENTRPC_NO_TRANSPORT. A peer without a tenant of
   * its own is reached in the caller's tenant (`defaultTenant`).
   */
  resolve(uri: string, outbound: ReadonlyMap<TransportKind, Outbound>, defaultTenant?: string): ResolvedPeer {
    const peer = this.peers.get(uri);
    if (!peer) throw new RpcError('EAGENTRPC_NO_PEER', `no peer ${uri} in the peer table`, { details: { to: uri } });
    const last = peer.resolved;
    if (last !== undefined && last.outbound === outbound && last.defaultTenant === defaultTenant) return last.peer;
    for (const [kind, topic] of peer.topics) {
      const carrier = outbound.get(kind);
      if (!carrier) continue;
      const tenantId = peer.entry.tenantId ?? defaultTenant;
      const resolvedTopic = topic ?? defaultAgentTopics(agentIdOf(uri), tenantId).requests;
      const resolved: ResolvedPeer = { uri, outbound: carrier, topic: resolvedTopic, tenantId, auth: peer.entry.auth };
      peer.resolved = { outbound, defaultTenant, peer: resolved };
      return resolved;
    }
    const wanted = [...peer.topics.keys()];
    throw new RpcError('EAGENTRPC_NO_TRANSPORT', `peer ${uri} is reachable over ${wanted.join(', ')}, none of which is loaded`, {
      details: { to: uri, kinds: wanted, loaded: [...outbound.keys()] },
    });
  }
}

/** Accepts `agent://<id>` or a bare id; throws TypeError for anything else. */
export function normalizeAgentUri(idOrUri: string): string {
  if (!idOrUri.startsWith('agent://')) return agentUri(idOrUri);
  agentIdOf(idOrUri);
  return idOrUri;
}
