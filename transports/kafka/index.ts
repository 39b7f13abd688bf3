export { kafkaTransport } from './kafka-transport.js';
export type { KafkaClientOptions, KafkaTransportOptions } from './kafka-options.js';
export { kafkaTransportPlugin, kafkaOptionsFromConfig } from './plugin.js';
export { kafkaConfigSchema, kafkaRouteSchema, kafkaClientFromConfig, type KafkaTransportConfig, type KafkaClientConfig, type KafkaRouteConfig } from './kafka-config.js';
