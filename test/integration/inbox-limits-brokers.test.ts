import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { DLQ_EXCERPT_BYTES } from '../../src/dlq/record.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { defaultAgentTopics } from '../../src/rpc/topics.js';
import { until } from '../../src/testing/wait.js';
import { brokerTargets } from '../support/broker-targets.js';

const { targets } = await brokerTargets();

const MAX_BYTES = 48 * 1024;
/** 20,000 levels of arrays: 40,000 bytes, under the size limit; a recursive reader would overflow its stack. */
const DEEP = Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
/** Over the size limit, and valid JSON for all that. */
const LARGE = Buffer.from(JSON.stringify({ pad: 'x'.repeat(100_000) }));

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const one of opened.reverse()) await one.close();
});

describe('inbox limits - on every broker transport, bytes too deep or too large are dead-lettered with a reason code and a bounded excerpt', () => {
  it.each(targets)('inbox limits - $name: a 20,000-level body is too-deep (kept whole), a body over maxBytes is too-large (its size and a 1 KiB excerpt kept)', async (target) => {
    const id = `limits-${randomUUID().slice(0, 8)}`;
    const agent = new AgentNode({ id, transports: [await target.transport()], limits: { maxBytes: MAX_BYTES }, ...(target.tenantId === undefined ? {} : { tenantId: target.tenantId }) });
    opened.push(agent);
    await agent.start();
    const sender = await target.transport();
    opened.push(sender);
    const topic = defaultAgentTopics(id, target.tenantId).requests;
    await sender.publish(topic, { body: DEEP });
    await sender.publish(topic, { body: LARGE });
    await until(async () => (await agent.dlq.list()).length >= 2, 30_000);
    const records = (await agent.dlq.list()).sort((a, b) => a.reason.localeCompare(b.reason));
    expect(records.map((r) => [r.kind, r.reason])).toEqual([
      ['decode-failed', 'too-deep'],
      ['decode-failed', 'too-large'],
    ]);
    const [deep, large] = records;
    expect(Buffer.from(deep!.rawBase64, 'base64').equals(DEEP)).toBe(true);
    expect(deep!.size).toBeUndefined();
    expect(large!.size).toBe(LARGE.byteLength);
    expect(Buffer.from(large!.rawBase64, 'base64').equals(LARGE.subarray(0, DLQ_EXCERPT_BYTES))).toBe(true);
    await expect(agent.requeueDlq(large!.id)).rejects.toBeInstanceOf(RangeError);
  }, 60_000);
});
