import type { AgentRpcEnvelope } from './envelope/index.js';
import type { WireError } from './errors.js';

/**
 * A gateway carries calls to peers that speak another protocol than the envelope on a
 * broker: `http` (agents on other nodes, through their session API) and `a2a` (A2A agents).
 * Unlike a transport it moves no bytes between topics and subscribes to nothing: the node
 * hands it each call its send path built (permission, route, guard, flow budget, envelope
 * and signature all applied as for a transport), and the gateway hands back what became of
 * the call through the port the node gives it when it starts.
 */
export interface Gateway {
  /** The route kind it serves in rpc-peers.yaml (`http`, `a2a`); also its calls' replyTo scheme. */
  readonly kind: string;
  /** Called once, when the node starts: where the gateway hands back answers and failures. */
  open(port: GatewayPort): Promise<void>;
  /**
   * Starts carrying a call. Resolves once the call is on its way (its answer comes through
   * the port); rejects with an RpcError when it cannot be started (an unknown remote node,
   * an unreachable peer for an event, a closed gateway).
   */
  send(call: GatewayCall): Promise<void>;
  /** The caller stopped waiting for the request `requestId`: stop, and cancel what runs for it on the peer. */
  abandon(requestId: string): void;
  /** Stops every call under way; later sends reject with EAGENTRPC_TRANSPORT_CLOSED. Idempotent. */
  close(): Promise<void>;
}

/** One call for a gateway: a request or an event, as the send path built and signed it. */
export interface GatewayCall {
  /** Where the peer is, as its route says: a remote node's name (`http`), an A2A agent's URL (`a2a`). */
  readonly address: string;
  readonly envelope: AgentRpcEnvelope;
  /** The envelope's encoded bytes, signature included: for a protocol that carries the envelope itself (`http`). */
  readonly body: Uint8Array;
}

/** An answer a gateway made itself from the peer's reply: progress (any number), then one final answer or failure. */
export type GatewayAnswer = { readonly ok: true; readonly data: unknown; readonly progress?: true } | { readonly ok: false; readonly error: WireError };

/** What the node offers a gateway to hand back what became of the calls it carries. */
export interface GatewayPort {
  /**
   * An answer the gateway made in this process from what the peer said, over a connection
   * it authenticated: it settles the call waiting for `request` (progress reaches the
   * caller's `onProgress`). No peer signed it; the node audits it as the gateway's own
   * (provider `<kind>-gateway`).
   */
  answer(request: AgentRpcEnvelope, answer: GatewayAnswer): void;
  /**
   * The response envelope the peer itself made and signed (a protocol that carries the
   * envelope, as `http` does): the node verifies it with the peer's provider and settles
   * the call, exactly as for a response from a broker.
   */
  deliverSigned(request: AgentRpcEnvelope, body: Uint8Array): void;
  /**
   * The call could not be carried to the end (the peer failed, timed out, could not be
   * reached): its caller gets `error`; when nobody waits (an event, a call already
   * settled) the call is dead-lettered as `remote-failed`.
   */
  failed(call: GatewayCall, error: Error & { readonly code: string }): void;
}
