export { kafkaTransport } from './kafka-transport.js';
export { KAFKA_LOG_LEVELS, type KafkaClientSettings, type KafkaConsumerSettings, type KafkaLogLevel, type KafkaTransportOptions } from './kafka-options.js';
