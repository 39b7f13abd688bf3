import type { Producer, ProducerBatch } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/errors.js';
import { silentLogger } from '../../src/observability/logger.js';
import { CommitWatermark } from '../../transports/kafka/commit-watermark.js';
import { DeliveryAttempts } from '../../transports/kafka/delivery-attempts.js';
import { KafkaPublisher, type PublisherSettings, type TopicPreparer } from '../../transports/kafka/kafka-publisher.js';
import { kafkaTransport } from '../../transports/kafka/index.js';
import { OffsetCommitter } from '../../transports/kafka/offset-committer.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { gate } from '../support/fleet.js';

// The Kafka transport's options and bookkeeping, without a broker: fakes stand in for kafkajs.

describe('kafka - options', () => {
  it('kafka - bad options throw TypeError or RangeError naming the field', () => {
    const ok = ['127.0.0.1:9092'];
    expect(() => kafkaTransport({ brokers: [] })).toThrow(TypeError);
    expect(() => kafkaTransport({ brokers: ['no-port'] })).toThrow(/brokers/);
    expect(() => kafkaTransport({ brokers: ok, partitions: 0 })).toThrow(RangeError);
    expect(() => kafkaTransport({ brokers: ok, partitions: 0 })).toThrow(/partitions/);
    expect(() => kafkaTransport({ brokers: ok, maxInflight: 1.5 })).toThrow(/maxInflight/);
    expect(() => kafkaTransport({ brokers: ok, clientId: '' })).toThrow(/clientId/);
    expect(() => kafkaTransport({ brokers: ok, logLevel: 'loud' as never })).toThrow(/logLevel/);
    expect(() => kafkaTransport({ brokers: ok, sasl: {} as never })).toThrow(/sasl/);
    expect(() => kafkaTransport({ brokers: ok, publishRetry: { retries: 0 } })).toThrow(/publishRetry\.retries/);
    expect(() => kafkaTransport({ brokers: ok, consumer: { heartbeatInterval: 20_000 } })).toThrow(/heartbeatInterval/);
  });
});

describe('kafka - commit watermark', () => {
  it('kafka - the commit only moves past a message once every earlier one is acked', () => {
    const mark = new CommitWatermark();
    for (const offset of [10n, 11n, 12n, 13n]) mark.track(offset);
    expect(mark.settle(12n)).toBeUndefined();
    expect(mark.settle(11n)).toBeUndefined();
    expect(mark.settle(10n)).toBe(13n);
    expect(mark.pending).toBe(1);
    expect(mark.settle(13n)).toBe(14n);
    expect(mark.pending).toBe(0);
  });
});

describe('kafka - delivery attempts', () => {
  it('kafka - a message handed out again goes on counting until acked; counts leave with their partition', () => {
    const attempts = new DeliveryAttempts();
    expect([attempts.next(0, '5'), attempts.next(0, '5'), attempts.next(1, '5')]).toEqual([1, 2, 1]);
    attempts.forget(0, '5');
    expect(attempts.next(0, '5')).toBe(1);
    attempts.retain([0]);
    expect([attempts.next(0, '5'), attempts.next(1, '5')]).toEqual([2, 1]);
  });
});

describe('kafka - offset committer', () => {
  it('kafka - offsets that advance during a commit go out together in the next one, newest per partition', async () => {
    const commits: Array<Array<{ partition: number; offset: string }>> = [];
    const first = gate();
    const committer = new OffsetCommitter(
      't',
      async (offsets) => {
        commits.push(offsets.map(({ partition, offset }) => ({ partition, offset })));
        if (commits.length === 1) await first.promise;
      },
      silentLogger,
    );
    committer.set(0, '1');
    committer.set(0, '2');
    committer.set(1, '7');
    committer.set(0, '3');
    first.open();
    await committer.flush();
    expect(commits).toEqual([[{ partition: 0, offset: '1' }], [{ partition: 0, offset: '3' }, { partition: 1, offset: '7' }]]);
  });

  it('kafka - a rebalance drops offsets gathered for the old generation; a failed commit does not stop later ones', async () => {
    const commits: string[] = [];
    const first = gate();
    const committer = new OffsetCommitter(
      't',
      async (offsets) => {
        commits.push(offsets.map((o) => o.offset).join());
        if (commits.length === 1) {
          await first.promise;
          throw new Error('REBALANCE_IN_PROGRESS');
        }
      },
      silentLogger,
    );
    committer.set(0, '1');
    committer.set(0, '2');
    committer.reset();
    first.open();
    await committer.flush();
    committer.set(0, '9');
    await committer.flush();
    expect(commits).toEqual(['1', '9']);
  });
});

/** A producer whose sendBatch records batches and fails as told. */
function fakeProducers(fail: (batch: ProducerBatch) => Error | undefined = () => undefined) {
  const batches: string[][] = [];
  let created = 0;
  let discarded = 0;
  const make = (): Producer =>
    ({
      sendBatch: async (batch: ProducerBatch) => {
        batches.push((batch.topicMessages ?? []).flatMap((t) => t.messages.map((m) => String(m.value))));
        const error = fail(batch);
        if (error) throw error;
        return [];
      },
    }) as unknown as Producer;
  let current: Producer | undefined;
  return {
    batches,
    stats: () => ({ created, discarded }),
    source: {
      get: async () => (current ??= (created++, make())),
      discard: (producer: Producer) => {
        discarded++;
        if (current === producer) current = undefined;
      },
    },
  };
}

/** Every topic ready: no preparation needed. */
const ready: TopicPreparer = { prepare: () => undefined, forget: () => undefined };
const settings: PublisherSettings = { lingerMs: 0, maxBatchBytes: 64 * 1024, maxPendingPublishes: 1_000 };
const body = (s: string): Uint8Array => Buffer.from(s);

describe('kafka - publisher batching', () => {
  it('kafka - concurrent publishes share one produce request; those arriving meanwhile share the next', async () => {
    const producers = fakeProducers();
    const publisher = new KafkaPublisher(producers.source, ready, settings);
    const first = ['a', 'b', 'c'].map((m) => publisher.publish('t', { body: body(m), key: m }));
    await Promise.resolve();
    await Promise.all(first);
    const second = ['d', 'e'].map((m) => publisher.publish('t', { body: body(m) }));
    await Promise.all(second);
    expect(producers.batches).toEqual([['a', 'b', 'c'], ['d', 'e']]);
  });

  it('kafka - a batch never exceeds maxBatchBytes (one larger message still goes, alone)', async () => {
    const producers = fakeProducers();
    const publisher = new KafkaPublisher(producers.source, ready, { ...settings, maxBatchBytes: 2_048 });
    const big = 'x'.repeat(3_000);
    await Promise.all([publisher.publish('t', { body: body('small-1') }), publisher.publish('t', { body: body(big) }), publisher.publish('t', { body: body('small-2') })]);
    expect(producers.batches.map((b) => b.map((m) => m.length))).toEqual([[7], [3_000], [7]]);
  });

  it('kafka - a message refused for good fails alone; its batch neighbours are sent again and land', async () => {
    const tooLarge = Object.assign(new Error('MESSAGE_TOO_LARGE'), { name: 'KafkaJSProtocolError', retriable: false });
    const producers = fakeProducers((batch) => (batch.topicMessages?.some((t) => t.messages.some((m) => String(m.value) === 'poison')) ? tooLarge : undefined));
    const publisher = new KafkaPublisher(producers.source, ready, settings);
    const outcomes = await Promise.all(['ok-1', 'poison', 'ok-2'].map((m) => publisher.publish('t', { body: body(m) }).then(() => 'ok', (e: unknown) => e)));
    expect(outcomes[0]).toBe('ok');
    expect(outcomes[2]).toBe('ok');
    expect(isRpcErrorWithCode(outcomes[1], 'EAGENTRPC_PUBLISH_FAILED')).toBe(true);
    expect((outcomes[1] as RpcError).retriable).toBe(false);
  });

  it('kafka - retries that ran out fail the batch as retriable, and the next batch uses a new producer', async () => {
    let failing = true;
    const exhausted = Object.assign(new Error('retries exhausted'), { name: 'KafkaJSNumberOfRetriesExceeded', retriable: false });
    const producers = fakeProducers(() => (failing ? exhausted : undefined));
    const publisher = new KafkaPublisher(producers.source, ready, settings);
    const failed = await Promise.all(['a', 'b'].map((m) => publisher.publish('t', { body: body(m) }).catch((e: unknown) => e)));
    for (const error of failed) expect([(error as RpcError).code, (error as RpcError).retriable]).toEqual(['EAGENTRPC_PUBLISH_FAILED', true]);
    failing = false;
    await publisher.publish('t', { body: body('c') });
    expect(producers.stats()).toEqual({ created: 2, discarded: 1 });
  });

  it('kafka - a topic that cannot be prepared fails its own publishes only', async () => {
    const producers = fakeProducers();
    const missing = new RpcError('EAGENTRPC_PUBLISH_FAILED', 'gone', { retriable: false });
    const publisher = new KafkaPublisher(producers.source, { prepare: (topic) => (topic === 'gone' ? Promise.reject(missing) : undefined), forget: () => undefined }, settings);
    const outcomes = await Promise.all([publisher.publish('gone', { body: body('x') }).catch((e: unknown) => e), publisher.publish('here', { body: body('y') })]);
    expect(outcomes).toEqual([missing, undefined]);
    expect(producers.batches).toEqual([['y']]);
  });

  it('kafka - past maxPendingPublishes a publish is refused with EAGENTRPC_BUSY', async () => {
    const release = gate();
    const publisher = new KafkaPublisher(
      { get: async () => ({ sendBatch: () => release.promise.then(() => []) }) as unknown as Producer, discard: () => undefined },
      ready,
      { ...settings, maxPendingPublishes: 2 },
    );
    const accepted = [publisher.publish('t', { body: body('1') }), publisher.publish('t', { body: body('2') })];
    expect(isRpcErrorWithCode(await publisher.publish('t', { body: body('3') }).catch((e: unknown) => e), 'EAGENTRPC_BUSY')).toBe(true);
    release.open();
    await Promise.all(accepted);
    await publisher.drained();
  });
});
