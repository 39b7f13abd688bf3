/**
 * `npm run brokers`: one NATS (JetStream) and one Kafka for local development.
 * Prints export lines, then runs until Ctrl-C and stops both cleanly.
 */
import { startKafkaServer, type KafkaServerHandle } from './kafka-server.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

function log(message: string): void {
  process.stderr.write(`brokers: ${message}\n`);
}

async function main(): Promise<void> {
  let nats: NatsServerHandle | undefined;
  let kafka: KafkaServerHandle | undefined;
  let stopping = false;

  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await Promise.allSettled([nats?.stop(), kafka?.stop()]);
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

  if (stopping) return;
  process.stdout.write(`NATS_URL=${nats.url}\nKAFKA_BROKERS=${kafka.brokers.join(',')}\n`);
  log('running; press Ctrl-C to stop');

  // Keep the event loop alive until a signal handler exits.
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
