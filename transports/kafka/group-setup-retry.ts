import { backoffDelay, type BackoffPolicy } from '../../src/backoff.js';
import type { Logger } from '../../src/logger.js';

/**
 * A broker that has just started answers group requests with "the coordinator is loading"
 * (or not available / not the coordinator) until it has read its offsets topic; kafkajs
 * gives up on some of those after its own few retries. Setting up a subscription retries
 * them on the shared backoff schedule, for about half a minute, before it fails.
 */
export const GROUP_SETUP_RETRY: BackoffPolicy = { initialMs: 100, maxMs: 5_000, factor: 2, jitter: 0.2 };
export const GROUP_SETUP_ATTEMPTS = 10;

const COORDINATOR_ERRORS = new Set(['COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR_FOR_GROUP', 'GROUP_LOAD_IN_PROGRESS']);

interface KafkaJsError {
  readonly type?: string;
  readonly retriable?: boolean;
  readonly cause?: KafkaJsError;
  readonly name?: string;
}

/** A failure waiting can cure: a retriable kafkajs error, or a coordinator one anywhere in its causes. */
export function isRetriableGroupError(error: unknown): boolean {
  let e = error as KafkaJsError | undefined;
  for (let depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (e.type !== undefined && COORDINATOR_ERRORS.has(e.type)) return true;
    if (e.retriable === true || e.name === 'KafkaJSNumberOfRetriesExceeded' || e.name === 'KafkaJSConnectionError') return true;
  }
  return false;
}

export async function retryingGroupSetup<T>(
  work: () => Promise<T>,
  stopped: () => boolean,
  context: { what: string; topic: string; groupId: string; logger: Logger },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (stopped() || attempt >= GROUP_SETUP_ATTEMPTS || !isRetriableGroupError(error)) throw error;
      const delayMs = backoffDelay(GROUP_SETUP_RETRY, attempt);
      const { what, topic, groupId, logger } = context;
      logger.warn({ err: error, topic, groupId, attempt, delayMs }, `kafka ${what} failed; trying again`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
