import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'rabbitmq-client';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonlDlqSink } from '../../src/dlq/jsonl-file-sink.js';
import type { RpcMetrics } from '../../src/observability/metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { defaultAgentTopics } from '../../src/rpc/topics.js';
import { until } from '../../src/testing/wait.js';
import { brokerTargets } from '../support/broker-targets.js';

const { targets, amqp } = await brokerTargets();

/** Messages ready in a RabbitMQ queue, as the broker counts them. */
async function ready(queue: string): Promise<number> {
  const { Connection: RabbitConnection } = await import('rabbitmq-client');
  const rabbit: Connection = new RabbitConnection(amqp.url);
  try {
    return (await rabbit.queueDeclare({ queue, passive: true })).messageCount;
  } finally {
    await rabbit.close();
  }
}

/** A DLQ file under a regular file: every write fails with ENOTDIR, a real file-system error. */
function unwritableDlq(): JsonlDlqSink {
  const blocker = join(mkdtempSync(join(tmpdir(), 'dlq-unwritable-')), 'not-a-directory');
  writeFileSync(blocker, '');
  return new JsonlDlqSink({ path: join(blocker, 'dlq.jsonl') });
}

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const one of opened.reverse()) await one.close();
});

describe('dlq - a DLQ that cannot store a record never sends a message round for ever', () => {
  it.each(targets)('dlq write failure - $name: an undecodable message whose record cannot be written is acked, logged and counted (dlq-write-failed) after its last attempt', async (target) => {
    const id = `unrecorded-${randomUUID().slice(0, 8)}`;
    const dropped: string[] = [];
    const metrics: RpcMetrics = { transportDropped: (transport, reason) => void dropped.push(`${transport}/${reason}`) };
    const tenant = target.tenantId === undefined ? {} : { tenantId: target.tenantId };
    const agent = new AgentNode({ id, transports: [await target.transport()], dlq: unwritableDlq(), limits: { maxDeliveryAttempts: 3, retryDelayMs: 10 }, metrics, ...tenant });
    opened.push(agent);
    await agent.start();
    const sender = await target.transport();
    opened.push(sender);
    const topic = defaultAgentTopics(id, target.tenantId).requests;
    await sender.publish(topic, { body: Buffer.from('not an envelope') });
    await until(() => dropped.length > 0, 20_000);
    expect(dropped).toEqual([`${target.kind}/dlq-write-failed`]);
    if (target.kind === 'amqp') {
      // Nothing left to come round again: neither in the inbox queue nor in its dead queue.
      expect([await ready(`${amqp.prefix}${topic}`), await ready(`${amqp.prefix}${topic}.dead`)]).toEqual([0, 0]);
    }
  }, 30_000);
});
