import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startElasticMqServer, type ElasticMqServerHandle } from '../../tools/brokers/elasticmq-server.js';
import { ELASTICMQ_CREDENTIALS } from '../support/sqs-target.js';

// The first run downloads ElasticMQ's jars with Maven; later runs start from the cache.
const START_TIMEOUT_MS = 10 * 60_000;

describe('brokers - elasticmq', () => {
  let server: ElasticMqServerHandle;
  const clients: SQSClient[] = [];
  const client = (): SQSClient => {
    const created = new SQSClient({ endpoint: server.endpoint, region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    server = await startElasticMqServer();
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    for (const created of clients) created.destroy();
    await server?.stop();
  }, 60_000);

  it('brokers - elasticmq starts on a free loopback port and answers ListQueues', async () => {
    expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(9324);
    expect((await client().send(new ListQueuesCommand({}))).QueueUrls ?? []).toEqual([]);
  });

  it('brokers - elasticmq keeps queues and messages across kill -9 and restart', async () => {
    const sqs = client();
    const QueueName = `harness-${randomUUID()}`;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept' }));
    const oldPid = server.pid;

    await server.kill();
    await server.restart();

    expect(server.pid).not.toBe(oldPid);
    const again = client();
    const { Messages = [] } = await again.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
    expect(Messages.map((m) => m.Body)).toEqual(['kept']);
  });
});
