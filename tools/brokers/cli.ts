/**
 * `npm run brokers`: one NATS (JetStream), one Kafka, one RabbitMQ, one Mosquitto (MQTT), one ElasticMQ (SQS) and one Zipkin (traces) for local development.
 * Prints export lines, then runs until Ctrl-C and stops them cleanly.
 */
import { startKafkaServer, type KafkaServerHandle } from './kafka-server.js';
import { startMosquittoServer, type MosquittoServerHandle } from './mosquitto-server.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { startElasticMqServer, type ElasticMqServerHandle } from './elasticmq-server.js';
import { startRabbitMqServer, type RabbitMqServerHandle } from './rabbitmq-server.js';
import { startZipkinServer, type ZipkinServerHandle } from './zipkin-server.js';

function log(message: string): void {
  process.stderr.write(`brokers: ${message}\n`);
}

async function main(): Promise<void> {
  let nats: NatsServerHandle | undefined;
  let kafka: KafkaServerHandle | undefined;
  let mosquitto: MosquittoServerHandle | undefined;
  let sqs: ElasticMqServerHandle | undefined;
  let rabbitmq: RabbitMqServerHandle | undefined;
  let zipkin: ZipkinServerHandle | undefined;
  let stopping = false;

  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await Promise.allSettled([nats?.stop(), kafka?.stop(), rabbitmq?.stop(), mosquitto?.stop(), sqs?.stop(), zipkin?.stop()]);
    log('stopped');
    process.exit(0);
  };
  // Handlers installed before starting, so Ctrl-C during a slow first download still cleans up.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const natsStarted = Date.now();
  nats = await startNatsServer({ jetstream: true });
  log(`nats-server ready in ${Date.now() - natsStarted} ms (pid ${nats.pid}, log ${nats.logFile})`);

  const kafkaStarted = Date.now();
  kafka = await startKafkaServer({ log });
  log(`kafka ready in ${Date.now() - kafkaStarted} ms (pid ${kafka.pid}, log ${kafka.logFile})`);

  const rabbitmqStarted = Date.now();
  rabbitmq = await startRabbitMqServer();
  log(`rabbitmq ready in ${Date.now() - rabbitmqStarted} ms (pid ${rabbitmq.pid}, log ${rabbitmq.logFile})`);

  const mosquittoStarted = Date.now();
  mosquitto = await startMosquittoServer();
  log(`mosquitto ready in ${Date.now() - mosquittoStarted} ms (pid ${mosquitto.pid}, log ${mosquitto.logFile})`);

  const sqsStarted = Date.now();
  sqs = await startElasticMqServer({ log });
  log(`elasticmq (sqs) ready in ${Date.now() - sqsStarted} ms (pid ${sqs.pid}, log ${sqs.logFile})`);

  const zipkinStarted = Date.now();
  zipkin = await startZipkinServer({ log });
  log(`zipkin ready in ${Date.now() - zipkinStarted} ms (pid ${zipkin.pid}, log ${zipkin.logFile}, UI ${zipkin.url})`);

  if (stopping) return;
  process.stdout.write(`NATS_URL=${nats.url}\nKAFKA_BROKERS=${kafka.brokers.join(',')}\nRABBITMQ_URL=${rabbitmq.url}\nMQTT_URL=${mosquitto.url}\nSQS_ENDPOINT=${sqs.endpoint}\nZIPKIN_URL=${zipkin.url}\n`);
  log('running; press Ctrl-C to stop');

  // Keep the event loop alive until a signal handler exits.
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
