import { randomUUID } from 'node:crypto';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../src/errors.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import type { RpcTransport } from '../../src/transport.js';
import { sqsTransport } from '../../transports/sqs/index.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { Collector } from '../support/collector.js';
import { gate, until } from '../support/fleet.js';
import { ELASTICMQ_CREDENTIALS, runSqs } from '../support/sqs-target.js';

const sqs = await runSqs();
const admin = new SQSClient({ endpoint: sqs.endpoint, region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS });
const opened: RpcTransport[] = [];
const topic = (): string => `it.${randomUUID().slice(0, 8)}`;
const bytes = (s: string): Uint8Array => Buffer.from(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();

async function open(options: Parameters<typeof sqs.transport>[0] = {}): Promise<RpcTransport> {
  const transport = await sqs.transport(options);
  opened.push(transport);
  return transport;
}

async function queuesNamed(prefix: string): Promise<string[]> {
  const { QueueUrls = [] } = await admin.send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
  return QueueUrls.map((url) => url.slice(url.lastIndexOf('/') + 1)).sort();
}

afterAll(async () => {
  for (const transport of opened) await transport.close();
  admin.destroy();
});

describe('sqs - transport', () => {
  it('sqs - a missing @aws-sdk/client-sqs package is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const transport = sqsTransport({ endpoint: sqs.endpoint, loadModule: () => Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' })) });
    const error = await transport.connect().then(() => undefined, (e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('sqs - bad options throw naming the field; nothing listening is EAGENTRPC_CONNECT_FAILED', async () => {
    expect(() => sqsTransport({ endpoint: sqs.endpoint, waitTimeMs: 21_000 })).toThrow(/waitTimeMs/);
    expect(() => sqsTransport({ endpoint: sqs.endpoint, visibilityTimeoutMs: 1_500 })).toThrow(/visibilityTimeoutMs must be whole seconds/);
    expect(() => sqsTransport({ endpoint: sqs.endpoint, queuePrefix: 'a.b' })).toThrow(/queuePrefix/);
    expect(() => sqsTransport({ endpoint: 'queue.example' })).toThrow(/endpoint/);
    const nowhere = sqsTransport({ endpoint: 'http://127.0.0.1:1', region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS });
    const error = await nowhere.connect().then(() => undefined, (e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_CONNECT_FAILED')).toBe(true);
  });

  it('sqs - a delivery left unsettled comes back after the visibility timeout, its receive count as the attempt', async () => {
    const t = topic();
    const transport = await open({ visibilityTimeoutMs: 1_000 });
    const got = new Collector();
    await transport.subscribe(t, got.handler, { group: 'g' });
    await transport.publish(t, { body: bytes('slow') });
    const [first, second] = await got.waitFor(2, 15_000);
    expect([first!.attempt, second!.attempt]).toEqual([1, 2]);
    expect(second!.coordinates.deliveryId).toBe(first!.coordinates.deliveryId);
    second!.ack();
  });

  it('sqs - past maxReceiveCount the redrive policy moves a message to <queue>-dlq, handed over once more flagged exhausted', async () => {
    const t = topic();
    const transport = await open({ maxReceiveCount: 2 });
    const got = new Collector();
    await transport.subscribe(t, (d) => {
      got.handler(d);
      if (d.exhausted) d.ack();
      else d.nack();
    }, { group: 'g' });
    await transport.publish(t, { body: bytes('poison') });
    const deliveries = await got.waitFor(3, 15_000);
    expect(deliveries.map((d) => [d.attempt, d.exhausted ?? false])).toEqual([[1, false], [2, false], [3, true]]);
    expect(text(deliveries[2]!.body)).toBe('poison');
    expect(await queuesNamed(`${sqs.queuePrefix}${t.replace('.', '_')}`)).toEqual([`${sqs.queuePrefix}${t.replace('.', '_')}`, `${sqs.queuePrefix}${t.replace('.', '_')}-dlq`]);
  });

  it('sqs - a reply queue exists from subscribe to close; a reply to a gone instance fails and creates no queue', async () => {
    const t = topic();
    const name = `${sqs.queuePrefix}${t.replace('.', '_')}`;
    const transport = await open();
    const got = new Collector({ autoAck: true });
    const sub = await transport.subscribe(t, got.handler, { ephemeral: true });
    expect(await queuesNamed(name)).toEqual([name]);
    await transport.publish(t, { body: bytes('reply'), ephemeral: true });
    await got.waitFor(1);
    await sub.close();
    expect(await queuesNamed(name)).toEqual([]);
    const error = await transport.publish(t, { body: bytes('late reply'), ephemeral: true }).then(() => undefined, (e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_PUBLISH_FAILED')).toBe(true);
    expect(await queuesNamed(name)).toEqual([]);
  });

  it('sqs - FIFO queues keep order per key and drop a repeated messageId', async () => {
    const t = topic();
    const transport = await open({ fifo: true });
    const got = new Collector({ autoAck: true });
    await transport.subscribe(t, got.handler, { group: 'g' });
    const id = randomUUID();
    await transport.publish(t, { body: bytes('a:0'), key: 'a', messageId: id });
    // Another body under the same messageId: a publish retry, dropped by SQS's deduplication id.
    await transport.publish(t, { body: bytes('a:0 (retry)'), key: 'a', messageId: id });
    for (let i = 1; i < 20; i++) await transport.publish(t, { body: bytes(`a:${i}`), key: 'a', messageId: randomUUID() });
    const received = (await got.waitFor(20)).map((d) => text(d.body));
    expect(received).toEqual(Array.from({ length: 20 }, (_, i) => `a:${i}`));
    expect((await got.waitFor(20))[0]!.key).toBe('a');
  });
});

describe('sqs - inbox end to end', () => {
  const sqsNode = (id: string, limits: { retryDelayMs?: number; maxDeliveryAttempts?: number }, metrics = {}): AgentNode => {
    const transport = sqsTransport({ endpoint: sqs.endpoint, region: 'elasticmq', credentials: ELASTICMQ_CREDENTIALS, queuePrefix: sqs.queuePrefix, waitTimeMs: 1_000, visibilityTimeoutMs: 1_000, maxReceiveCount: 2 });
    return new AgentNode({ id, transports: [transport], peers: new PeerTable([{ id: id.replace(/^caller-/, ''), routes: [{ kind: 'sqs' }] }]), limits, metrics });
  };

  it('sqs - a handler outliving the visibility timeout runs once and answers once; nothing is dead-lettered', async () => {
    const id = `slow-${randomUUID().slice(0, 6)}`;
    const held: string[] = [];
    const slow = sqsNode(id, { retryDelayMs: 20 }, { duplicateSkipped: (capability: string) => held.push(capability) });
    const caller = sqsNode(`caller-${id}`, {});
    const release = gate();
    let runs = 0;
    slow.handle('hang', async () => {
      runs += 1;
      await release.promise;
      return 'done';
    });
    await slow.start();
    await caller.start();
    try {
      const pending = caller.requestAgent({ to: id, capability: 'hang', payload: null, timeoutMs: 25_000 });
      // Past the 1 s visibility timeout SQS hands the message out again; the inbox holds it.
      await until(() => held.length >= 3, 20_000);
      release.open();
      expect(await pending).toMatchObject({ status: 'ok', response: 'done' });
      expect(runs).toBe(1);
      expect(await slow.dlq.list()).toEqual([]);
    } finally {
      release.open();
      await caller.close();
      await slow.close();
    }
  }, 30_000);

  it('sqs - a request that keeps failing is redriven to the DLQ queue after maxReceiveCount and dead-lettered from there, the caller told', async () => {
    const id = `failing-${randomUUID().slice(0, 6)}`;
    // More attempts allowed than receives: the redrive policy ends it, not the inbox.
    const failing = sqsNode(id, { retryDelayMs: 20, maxDeliveryAttempts: 10 });
    const caller = sqsNode(`caller-${id}`, {});
    failing.handle('fail', () => {
      throw new RpcError('BACKEND_BUSY', 'try again', { retriable: true });
    });
    await failing.start();
    await caller.start();
    try {
      const result = await caller.requestAgent({ to: id, capability: 'fail', payload: null, timeoutMs: 20_000 });
      expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_HANDLER_FAILED' } });
      await until(async () => (await failing.dlq.list()).length > 0);
      const [record] = await failing.dlq.list();
      expect(record).toMatchObject({ kind: 'handler-failed', reason: 'max-deliver', transport: 'sqs' });
    } finally {
      await caller.close();
      await failing.close();
    }
  }, 30_000);
});
