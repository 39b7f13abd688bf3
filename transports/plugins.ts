import type { TransportPlugin } from '../src/transport-plugin.js';
import { builtinFrontDoors, builtinHandlerTypes, type DaemonPlugins } from '../src/runtime/index.js';
import { a2aTransportPlugin } from './a2a/index.js';
import { amqpTransportPlugin } from './amqp/index.js';
import { httpTransportPlugin } from './http/index.js';
import { kafkaTransportPlugin } from './kafka/index.js';
import { memoryTransportPlugin } from './memory/index.js';
import { mqttTransportPlugin } from './mqtt/index.js';
import { natsTransportPlugin } from './nats/index.js';
import { sqsTransportPlugin } from './sqs/index.js';

/**
 * The transports the `agent-rpc` command and daemon know, one line each. Importing this
 * list loads no broker client: each plug-in loads its package when it creates a transport.
 */
export const builtinTransports: readonly TransportPlugin[] = [
  memoryTransportPlugin,
  natsTransportPlugin,
  kafkaTransportPlugin,
  httpTransportPlugin,
  amqpTransportPlugin,
  mqttTransportPlugin,
  sqsTransportPlugin,
  a2aTransportPlugin,
];

/** Everything `agent-rpc` is built with: these transports, the front doors and the handler types (`startDaemon(dir, builtinPlugins)`). */
export const builtinPlugins: DaemonPlugins = { transports: builtinTransports, frontDoors: builtinFrontDoors, handlerTypes: builtinHandlerTypes };
