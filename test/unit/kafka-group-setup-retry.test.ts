import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { isRetriableGroupError, retryingGroupSetup } from '../../transports/kafka/group-setup-retry.js';

/** kafkajs errors as kafkajs shapes them: a name, a protocol `type`, `retriable`, a `cause`. */
const kafkajsError = (fields: { name?: string; type?: string; retriable?: boolean; cause?: unknown }): Error => Object.assign(new Error('kafkajs'), fields);

describe('kafka - subscription setup retries', () => {
  it('kafka - a loading or moved group coordinator is retriable, even wrapped in a non-retriable error', () => {
    expect(isRetriableGroupError(kafkajsError({ type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true }))).toBe(true);
    expect(isRetriableGroupError(kafkajsError({ name: 'KafkaJSNonRetriableError', retriable: false, cause: kafkajsError({ type: 'COORDINATOR_NOT_AVAILABLE' }) }))).toBe(true);
    expect(isRetriableGroupError(kafkajsError({ name: 'KafkaJSNumberOfRetriesExceeded', retriable: false }))).toBe(true);
  });

  it('kafka - a refusal waiting cannot cure is not retried', async () => {
    const refused = kafkajsError({ type: 'GROUP_AUTHORIZATION_FAILED', retriable: false });
    expect(isRetriableGroupError(refused)).toBe(false);
    let calls = 0;
    const attempt = retryingGroupSetup(
      async () => {
        calls++;
        throw refused;
      },
      () => false,
      { what: 'subscribe', topic: 't', groupId: 'g', logger: silentLogger },
    );
    await expect(attempt).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('kafka - setup goes on after the coordinator finished loading', async () => {
    let calls = 0;
    const result = await retryingGroupSetup(
      async () => {
        if (++calls < 3) throw kafkajsError({ type: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true });
        return 'subscribed';
      },
      () => false,
      { what: 'subscribe', topic: 't', groupId: 'g', logger: silentLogger },
    );
    expect({ result, calls }).toEqual({ result: 'subscribed', calls: 3 });
  });
});
