/**
 * Servers given by the environment. When set, tests use them instead of starting their
 * own (CI with a broker service, or a developer running `npm run brokers`).
 */

/** `NATS_URL` (e.g. `nats://127.0.0.1:4222`), or undefined when unset or blank. */
export function natsUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return setting(env, 'NATS_URL');
}

/** `KAFKA_BROKERS` split on commas (e.g. `127.0.0.1:9092,127.0.0.1:9093`), or undefined. */
export function kafkaBrokersFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const brokers = (env['KAFKA_BROKERS'] ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  return brokers.length === 0 ? undefined : brokers;
}

/** `REDIS_URL` (e.g. `redis://127.0.0.1:6379`), or undefined when unset or blank. */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return setting(env, 'REDIS_URL');
}

/** `MQTT_URL` (e.g. `mqtt://127.0.0.1:1883`), or undefined when unset or blank. */
export function mqttUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return setting(env, 'MQTT_URL');
}

/** `SQS_ENDPOINT` (an SQS-compatible endpoint, e.g. `http://127.0.0.1:9324`), or undefined when unset or blank. */
export function sqsEndpointFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return setting(env, 'SQS_ENDPOINT');
}

/** `RABBITMQ_URL` (e.g. `amqp://guest:guest@127.0.0.1:5672`), or undefined when unset or blank. */
export function rabbitMqUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return setting(env, 'RABBITMQ_URL');
}

/** A variable's trimmed value, or undefined when unset or blank. */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
