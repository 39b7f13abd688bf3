import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { RpcError } from '../../errors.js';
import { importOptional } from '../../optional-package.js';
import type { SecretValue } from '../../secrets/index.js';
import { AGENT_CARD_PATH } from '../a2a-mapping.js';
import { isUnreachable, peerError } from './peer-error.js';

type ClientModule = typeof import('@a2a-js/sdk/client');

/** One A2A peer as its rpc-peers.yaml route names it. */
export interface A2aPeerRoute {
  /** The agent's base URL (card at `/.well-known/agent-card.json` under it) or the card's own URL (ending in `.json`). */
  readonly url: string;
  /** A secret reference to a bearer token sent with every request to the peer (card included). */
  readonly tokenRef?: string;
}

/** A peer's card and the SDK client made from it. */
export interface PeerClient {
  readonly url: string;
  readonly card: AgentCard;
  readonly client: Client;
  /** The card offers streaming (`capabilities.streaming`): follow tasks over SSE, else poll. */
  readonly streaming: boolean;
}

export interface PeerClientsOptions {
  readonly routes: ReadonlyMap<string, A2aPeerRoute>;
  readonly resolveSecret: (ref: string) => Promise<SecretValue>;
  /** How long a fetched card is used before it is fetched again. */
  readonly cardTtlMs: number;
  readonly now: () => number;
}

/**
 * The SDK clients of the A2A peers, one per URL, made from the peer's card: fetched on
 * first use, used for `cardTtlMs`, and fetched again sooner when a call to the peer fails
 * (`forget`), so a peer that moved or changed its card is found again.
 */
export class PeerClients {
  private readonly cached = new Map<string, { at: number; peer: Promise<PeerClient> }>();
  private sdk: Promise<ClientModule> | undefined;

  constructor(private readonly options: PeerClientsOptions) {}

  /** Rejects with EAGENTRPC_PEER_CARD_INVALID (card), EAGENTRPC_MISSING_PACKAGE or the token's secret error. */
  get(url: string): Promise<PeerClient> {
    const hit = this.cached.get(url);
    if (hit && this.options.now() - hit.at < this.options.cardTtlMs) return hit.peer;
    const peer = this.make(url);
    this.cached.set(url, { at: this.options.now(), peer });
    // A failed fetch is not kept: the next call fetches again.
    peer.catch(() => this.forget(url, peer));
    return peer;
  }

  /** The card of `url` is fetched again on its next use. */
  forget(url: string, peer?: Promise<PeerClient>): void {
    if (peer === undefined || this.cached.get(url)?.peer === peer) this.cached.delete(url);
  }

  private async make(url: string): Promise<PeerClient> {
    this.sdk ??= importOptional(() => import('@a2a-js/sdk/client'), 'the a2a gateway', '@a2a-js/sdk');
    const sdk = await this.sdk;
    const route = this.options.routes.get(url);
    const token = route?.tokenRef === undefined ? undefined : await this.options.resolveSecret(route.tokenRef);
    const fetchImpl: typeof fetch = token === undefined ? fetch : (input, init) => fetch(input, withBearer(init, token.reveal()));
    const cardResolver = new sdk.DefaultAgentCardResolver({ fetchImpl });
    let card: AgentCard;
    try {
      card = await cardResolver.resolve(cardUrlOf(url), '');
    } catch (cause) {
      if (isUnreachable(cause)) throw peerError(url, cause);
      throw new RpcError('EAGENTRPC_PEER_CARD_INVALID', `could not read the agent card of ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, details: { url } });
    }
    const factory = new sdk.ClientFactory(
      sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
        transports: [new sdk.JsonRpcTransportFactory({ fetchImpl }), new sdk.RestTransportFactory({ fetchImpl })],
        cardResolver,
      }),
    );
    try {
      const client = await factory.createFromAgentCard(card);
      return { url, card, client, streaming: card.capabilities?.streaming === true };
    } catch (cause) {
      throw new RpcError('EAGENTRPC_PEER_CARD_INVALID', `the agent card of ${url} offers no interface this node speaks (JSON-RPC, HTTP+JSON): ${cause instanceof Error ? cause.message : String(cause)}`, { cause, details: { url } });
    }
  }
}

/**
 * Where a route's agent card is: the URL itself when it names a `.json` file, else
 * `/.well-known/agent-card.json` under it, path kept (`http://h/a2a/x` → `http://h/a2a/x/.well-known/agent-card.json`).
 * Never the origin's root for a URL with a path: that card may be another agent's.
 */
export function cardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}${AGENT_CARD_PATH}`;
  return parsed.href;
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
  const headers = new Headers(init?.headers);
  // Headers the SDK set itself win; the route's token is the default.
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}
