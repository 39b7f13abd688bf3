/**
 * `agent-rpc/transport`: what a transport plug-in implements and is handed — the byte
 * carrier's interface, deliveries and their controls, the plug-in descriptor
 * (docs/transports/adding-a-transport.md) — and the same for a gateway (docs/gateways/adding-a-gateway.md).
 */
export type {
  BrokerEndpoint,
  ConnectionState,
  Delivery,
  DeliveryCoordinates,
  DeliveryHandler,
  OutboundMessage,
  RpcTransport,
  SubscribeOptions,
  Subscription,
  TransportKind,
  TransportTraits,
} from '../transport.js';
export { checkTransportPlugins, type TransportPlugin, type TransportPluginContext } from '../transport-plugin.js';
export type { Gateway, GatewayAnswer, GatewayCall, GatewayPort } from '../gateway.js';
export { checkGatewayPlugins, type GatewayPlugin, type GatewayPluginContext } from '../gateway-plugin.js';
