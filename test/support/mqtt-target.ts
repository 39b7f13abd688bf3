import { randomUUID } from 'node:crypto';
import type { RpcTransport } from '../../src/transport.js';
import { mqttTransport, type MqttTransportOptions } from '../../transports/mqtt/index.js';
import { runBroker, runScope } from './run-brokers.js';
import type { TransportSpec } from './transport-spec.js';

/** A test file's share of the run's Mosquitto. */
export interface RunMqtt {
  readonly url: string;
  /** Starts every MQTT topic this file uses (`s3f9a1c2e/`), so its traffic is its own. */
  readonly topicPrefix: string;
  /** A connected transport on this file's topics, with a session of its own; `options` may override any setting. */
  transport(options?: Omit<MqttTransportOptions, 'url'>): Promise<RpcTransport>;
  /** The same, for an agent in a child process. */
  spec(): TransportSpec;
}

/** The run's Mosquitto, seen through a topic prefix of its own (a fresh one on each call). */
export async function runMqtt(): Promise<RunMqtt> {
  const { url } = await runBroker('mqtt');
  const topicPrefix = `${runScope()}/`;
  return {
    url,
    topicPrefix,
    async transport(options = {}) {
      // Short-lived sessions: the run's broker forgets them soon after the test.
      const transport = mqttTransport({ url, topicPrefix, clientId: `test-${randomUUID()}`, sessionExpiryS: 60, ...options });
      await transport.connect();
      return transport;
    },
    spec: () => ({ kind: 'mqtt', url, topicPrefix }),
  };
}
