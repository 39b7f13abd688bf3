import { hostname } from 'node:os';
import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { brokerPlugin } from '../shared/broker-plugin.js';
import { mqttConfigSchema, mqttRouteSchema, type MqttRouteConfig, type MqttTransportConfig } from './mqtt-config.js';
import type { MqttTransportOptions } from './mqtt-options.js';
import { mqttTransport } from './mqtt-transport.js';

/** The transport options a capabilities.yaml `transports.mqtt` section stands for, secrets resolved. */
export async function mqttOptionsFromConfig(config: MqttTransportConfig, context: Pick<TransportPluginContext, 'clientId' | 'resolveSecret' | 'logger' | 'metrics'>): Promise<MqttTransportOptions> {
  const { passwordRef, ...settings } = config;
  return {
    // Stable across restarts (the session comes back), distinct across hosts (replicas).
    clientId: `${context.clientId}@${hostname()}`,
    ...settings,
    ...(passwordRef === undefined ? {} : { password: (await context.resolveSecret(passwordRef)).reveal() }),
    logger: context.logger,
    metrics: context.metrics,
  };
}

export const mqttTransportPlugin: TransportPlugin<MqttTransportConfig, MqttRouteConfig> = brokerPlugin({
  kind: 'mqtt',
  summary: 'MQTT 5 (Mosquitto): QoS 1, persistent sessions, ack after dispatch, shared subscriptions for replicas',
  configSchema: mqttConfigSchema,
  topicsField: 'topics',
  routeSchema: mqttRouteSchema,
  optionsFromConfig: mqttOptionsFromConfig,
  transport: mqttTransport,
  endpoint: { field: 'url', of: (settings) => settings.url },
});
