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
export { kafkaBrokersFromEnv, natsUrlFromEnv, redisUrlFromEnv } from './env-brokers.js';
export { startRedisServer, type RedisServerHandle } from './redis-server.js';
export { BROKER_KINDS, SharedBrokers, type BrokerAddresses, type BrokerKind, type SharedBrokersOptions } from './shared-brokers.js';
export { askBrokerService, serveBrokers, type BrokerService } from './broker-service.js';
