/**
 * Servers given by the environment. When set, tests use them instead of starting their
 * own (CI with a broker service, or a developer running `npm run brokers`).
 */

/** `NATS_URL` (e.g. `nats://127.0.0.1:4222`), or undefined when unset or blank. */
export function natsUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env['NATS_URL']?.trim();
  return url === undefined || url === '' ? undefined : url;
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
  const url = env['REDIS_URL']?.trim();
  return url === undefined || url === '' ? undefined : url;
}
