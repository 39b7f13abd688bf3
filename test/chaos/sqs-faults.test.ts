import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { startElasticMqServer } from '../../tools/brokers/index.js';
import { callUntilOk, chaosBroker, consumerKilledBeforeAck, echoLoadAcrossKill, expectTypedOutcomes } from '../support/chaos-kit.js';
import { until } from '../support/fleet.js';
import { ELASTICMQ_CREDENTIALS } from '../support/sqs-target.js';
import type { TransportSpec } from '../support/transport-spec.js';

describe('chaos - SQS (ElasticMQ) faults', () => {
  const broker = chaosBroker(startElasticMqServer, 120_000);
  const { start } = broker;
  // A short visibility timeout: what a dead consumer held comes back within seconds.
  const transport = (queuePrefix: string): TransportSpec => ({ kind: 'sqs', endpoint: broker.server.endpoint, queuePrefix, visibilityTimeoutMs: 3_000 });

  it('chaos - broker killed (-9) during load: every call ends typed, calls succeed after restart, no process crashes', async () => {
    const [alpha, beta] = await Promise.all([
      start({ id: 'alpha', transport: transport('kill-'), peers: ['beta'] }),
      start({ id: 'beta', transport: transport('kill-'), peers: ['alpha'] }),
    ]);
    const results = await echoLoadAcrossKill({ from: alpha, to: 'beta', broker: broker.server, before: 150, settledBeforeKill: 20, after: 50, timeoutMs: 15_000, waitMs: 60_000 });
    expectTypedOutcomes(results);
    await broker.server.restart();
    const recovered = await callUntilOk(alpha, { to: 'beta', capability: 'echo', payload: 'after restart', timeoutMs: 3_000 }, 30_000);
    expect(recovered).toMatchObject({ status: 'ok', response: 'after restart' });
    expect(await beta.call({ to: 'alpha', capability: 'echo', payload: 'both ways', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' });
    expect(alpha.running && beta.running).toBe(true);
  }, 120_000);

  it('chaos - a consumer killed after the side effect but before the delete: redelivered after the visibility timeout, not applied twice', async () => {
    const { base, doomed, call, effects } = await consumerKilledBeforeAck({
      start,
      transport: transport('crash-'),
      dirPrefix: 'sqs-crash-',
      call: { timeoutMs: 120_000, retry: { attempts: 30, attemptTimeoutMs: 4_000 } },
    });
    expect(await doomed.exited).toBeNull(); // killed by SIGKILL, no exit code
    expect(effects()).toHaveLength(1);
    await start(base);
    const result = await call;
    expect(result).toMatchObject({ status: 'ok', response: 'counted' });
    // The request the doomed worker never deleted comes back after its visibility timeout;
    // the new worker answers it from the dedupe store and deletes it: the inbox drains.
    const admin = new SQSClient({ endpoint: broker.server.endpoint, region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS });
    try {
      const inQueue = async (QueueName: string): Promise<number> => {
        const { QueueUrl } = await admin.send(new GetQueueUrlCommand({ QueueName }));
        const { Attributes = {} } = await admin.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
        return Number(Attributes['ApproximateNumberOfMessages']) + Number(Attributes['ApproximateNumberOfMessagesNotVisible']);
      };
      // Neither left in the inbox nor moved to its DLQ queue.
      const left = async (): Promise<number> => (await inQueue('crash-agents_worker_requests')) + (await inQueue('crash-agents_worker_requests-dlq'));
      await until(async () => (await left()) === 0, 20_000);
    } finally {
      admin.destroy();
    }
    expect(effects()).toEqual([result.messageId]);
  }, 180_000);
});
