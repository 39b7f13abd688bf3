/** Real NATS, Kafka and Redis servers for tests, benchmarks and `npm run brokers`. */
export { freePort, freePorts } from './free-port.js';
export { findNatsServerBinary, startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
export {
  DEFAULT_KAFKA_JVM_OPTIONS,
  DEFAULT_KAFKA_VERSION,
  ensureKafkaJars,
  kafkaHome,
  startKafkaServer,
  type KafkaJarsOptions,
  type KafkaServerHandle,
  type KafkaServerOptions,
  type MavenRunner,
} from './kafka-server.js';
export { kafkaBrokersFromEnv, mqttUrlFromEnv, natsUrlFromEnv, rabbitMqUrlFromEnv, redisUrlFromEnv, sqsEndpointFromEnv } from './env-brokers.js';
export { findMosquittoBinary, startMosquittoServer, type MosquittoServerHandle, type MosquittoServerOptions } from './mosquitto-server.js';
export { DEFAULT_ELASTICMQ_VERSION, ensureElasticMqJars, startElasticMqServer, type ElasticMqServerHandle, type ElasticMqServerOptions } from './elasticmq-server.js';
export { findRabbitMqServerScript, startRabbitMqServer, type RabbitMqServerHandle } from './rabbitmq-server.js';
export { DEFAULT_ZIPKIN_VERSION, ensureZipkinJars, startZipkinServer, type ZipkinServerHandle, type ZipkinServerOptions } from './zipkin-server.js';
export { startRedisServer, type RedisServerHandle } from './redis-server.js';
export { BROKER_KINDS, SharedBrokers, type BrokerAddresses, type BrokerKind, type SharedBrokersOptions } from './shared-brokers.js';
export { askBrokerService, serveBrokers, type BrokerService } from './broker-service.js';
