import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'rabbitmq-client';
import { describe, expect, it } from 'vitest';
import { JsonlDlqSink } from '../../src/dlq/jsonl-file-sink.js';
import type { RpcMetrics } from '../../src/observability/metrics.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { defaultAgentTopics } from '../../src/rpc/topics.js';
import { until } from '../../src/testing/wait.js';
import { runAmqp } from '../support/amqp-target.js';

const amqp = await runAmqp();

/** Messages ready in a queue, as the broker counts them. */
async function ready(queue: string): Promise<number> {
  const { Connection: RabbitConnection } = await import('rabbitmq-client');
  const rabbit: Connection = new RabbitConnection(amqp.url);
  try {
    return (await rabbit.queueDeclare({ queue, passive: true })).messageCount;
  } finally {
    await rabbit.close();
  }
}

describe('dlq - a DLQ that cannot store a record never sends a message round for ever', () => {
  it('dlq write failure - amqp: an undecodable message whose record cannot be written is acked, logged and counted (dlq-write-failed) after its last attempt, leaving nothing on the broker', async () => {
    // A DLQ file under a regular file: every write fails with ENOTDIR, a real file-system error.
    const blocker = join(mkdtempSync(join(tmpdir(), 'dlq-unwritable-')), 'not-a-directory');
    writeFileSync(blocker, '');
    const id = `unrecorded-${randomUUID().slice(0, 8)}`;
    const seen = { dropped: [] as string[] };
    const metrics: RpcMetrics = { transportDropped: (transport, reason) => void seen.dropped.push(`${transport}/${reason}`) };
    const agent = new AgentNode({
      id,
      transports: [await amqp.transport()],
      dlq: new JsonlDlqSink({ path: join(blocker, 'dlq.jsonl') }),
      limits: { maxDeliveryAttempts: 3, retryDelayMs: 10 },
      metrics,
    });
    await agent.start();
    const sender = await amqp.transport();
    try {
      const topic = defaultAgentTopics(id).requests;
      await sender.publish(topic, { body: Buffer.from('not an envelope') });
      await until(() => seen.dropped.length > 0, 20_000);
      expect(seen.dropped).toEqual(['amqp/dlq-write-failed']);
      // Nothing left to come round again: neither in the inbox queue nor in its dead queue.
      expect([await ready(`${amqp.prefix}${topic}`), await ready(`${amqp.prefix}${topic}.dead`)]).toEqual([0, 0]);
    } finally {
      await sender.close();
      await agent.close();
    }
  }, 30_000);
});
