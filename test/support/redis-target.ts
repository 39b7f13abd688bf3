import { runBroker, runScope } from './run-brokers.js';

/** A test file's share of the run's Redis. */
export interface RunRedis {
  readonly url: string;
  /** Prefix for every key this file writes (`s3f9a1c2e:`). */
  readonly keyPrefix: string;
}

/** The run's Redis, with a key prefix of its own (a fresh one on each call). */
export async function runRedis(): Promise<RunRedis> {
  const { url } = await runBroker('redis');
  return { url, keyPrefix: `${runScope()}:` };
}
