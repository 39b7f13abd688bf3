export { mqttTransport } from './mqtt-transport.js';
export type { MqttTransportOptions } from './mqtt-options.js';
export { mqttTopicOf } from './mqtt-options.js';
export { mqttTransportPlugin, mqttOptionsFromConfig } from './plugin.js';
export { mqttConfigSchema, mqttRouteSchema, type MqttTransportConfig, type MqttRouteConfig } from './mqtt-config.js';
