/**
 * `agent-rpc/transport`: what a transport plug-in implements and is handed — the byte
 * carrier's interface, deliveries and their controls, the plug-in descriptor
 * (docs/transports/adding-a-transport.md).
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
  UndeliverableMessage,
} from '../transport.js';
export { checkTransportPlugins, type TransportPlugin, type TransportPluginContext } from '../transport-plugin.js';
