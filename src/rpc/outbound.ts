import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { Gateway } from '../gateway.js';
import type { BrokerEndpoint, OutboundMessage, RpcTransport, TransportKind } from '../transport.js';

/**
 * What a call to a peer goes out on, as the send path sees it: a transport (the bytes are
 * published to the route's topic) or a gateway (the call is handed over whole, to the
 * route's address). The node makes one per transport and gateway when it is built.
 */
export interface Outbound {
  readonly kind: string;
  /** The broker a transport is connected to, named on the call's span; undefined for gateways. */
  readonly brokerEndpoint?: BrokerEndpoint | undefined;
  /** Sends the signed envelope (`message.body` is its encoding) to `address`: a topic, or a gateway's peer address. */
  send(address: string, signed: AgentRpcEnvelope, message: OutboundMessage): Promise<void>;
  /**
   * Gateways: the caller stopped waiting, the gateway cancels what runs for the request on
   * the peer. Undefined for a transport: the node tells the target with a `$cancel` event.
   */
  readonly abandon?: (requestId: string) => void;
}

export function transportOutbound(transport: RpcTransport): Outbound {
  return {
    kind: transport.kind,
    // Read per call: a transport keeps it up to date as its connection changes.
    get brokerEndpoint() {
      return transport.brokerEndpoint;
    },
    send: (topic, _signed, message) => transport.publish(topic, message),
  };
}

export function gatewayOutbound(gateway: Gateway): Outbound {
  return {
    kind: gateway.kind,
    send: (address, envelope, message) => gateway.send({ address, envelope, body: message.body }),
    abandon: (requestId) => gateway.abandon(requestId),
  };
}

/** A node's transports by kind, and what its calls go out on: every transport and gateway. Throws TypeError on a kind given twice. */
export function carriersByKind(
  transports: readonly RpcTransport[],
  gateways: readonly Gateway[],
): { transports: Map<TransportKind, RpcTransport>; outbound: Map<TransportKind, Outbound> } {
  const byKind = new Map<TransportKind, RpcTransport>();
  const outbound = new Map<TransportKind, Outbound>();
  for (const transport of transports) {
    if (byKind.has(transport.kind)) throw new TypeError(`AgentNode: two transports of kind ${transport.kind}`);
    byKind.set(transport.kind, transport);
    outbound.set(transport.kind, transportOutbound(transport));
  }
  for (const gateway of gateways) {
    if (outbound.has(gateway.kind)) throw new TypeError(`AgentNode: a gateway of kind ${gateway.kind} besides a transport or gateway of that kind`);
    outbound.set(gateway.kind, gatewayOutbound(gateway));
  }
  return { transports: byKind, outbound };
}
