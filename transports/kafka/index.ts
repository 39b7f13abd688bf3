export { kafkaTransport } from './kafka-transport.js';
export type { KafkaTransportOptions } from './kafka-options.js';
