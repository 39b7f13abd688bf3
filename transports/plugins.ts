import type { TransportPlugin } from '../src/transport-plugin.js';
import { builtinGateways } from '../src/gateways.js';
import { builtinFrontDoors, builtinHandlerTypes, type DaemonPlugins } from '../src/runtime/index.js';
import { amqpTransportPlugin } from './amqp/index.js';
import { kafkaTransportPlugin } from './kafka/index.js';
import { memoryTransportPlugin } from './memory/index.js';
import { mqttTransportPlugin } from './mqtt/index.js';
import { natsTransportPlugin } from './nats/index.js';
import { sqsTransportPlugin } from './sqs/index.js';

/**
 * The transports the `agent-rpc` command and daemon know, one line each (the gateways,
 * `http` and `a2a`, are listed in src/gateways.ts). Importing this list loads no broker
 * client: each plug-in loads its package when it creates a transport.
 */
export const builtinTransports: readonly TransportPlugin[] = [
  memoryTransportPlugin,
  natsTransportPlugin,
  kafkaTransportPlugin,
  amqpTransportPlugin,
  mqttTransportPlugin,
  sqsTransportPlugin,
];

/** Everything `agent-rpc` is built with: these transports, the gateways, the front doors and the handler types (`startDaemon(dir, builtinPlugins)`). */
export const builtinPlugins: DaemonPlugins = { transports: builtinTransports, gateways: builtinGateways, frontDoors: builtinFrontDoors, handlerTypes: builtinHandlerTypes };
