import type { TransportPlugin } from '../src/transport-plugin.js';
import { a2aTransportPlugin } from './a2a/plugin.js';
import { amqpTransportPlugin } from './amqp/plugin.js';
import { httpTransportPlugin } from './http/plugin.js';
import { kafkaTransportPlugin } from './kafka/plugin.js';
import { memoryTransportPlugin } from './memory/plugin.js';
import { mqttTransportPlugin } from './mqtt/plugin.js';
import { natsTransportPlugin } from './nats/plugin.js';
import { sqsTransportPlugin } from './sqs/plugin.js';

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
