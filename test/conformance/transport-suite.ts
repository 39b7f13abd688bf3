import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerEndpoint, Delivery, RpcTransport } from '../../src/transport.js';
import { isRpcErrorWithCode } from '../support/assertions.js';
import { Collector } from '../support/collector.js';

/**
 * The suite every transport passes against a real server. `connect()` returns a new
 * transport attached to the same server as the others of the run, as a separate agent
 * process would be. Behaviour a transport does not claim in its traits is not tested
 * (and the trait itself is asserted, so a transport cannot opt out silently).
 */
export interface ConformanceTarget {
  readonly name: string;
  readonly expectedTraits: RpcTransport['traits'];
  /** The server `brokerEndpoint` names once connected; undefined for a transport without a broker. */
  readonly expectedBroker: BrokerEndpoint | undefined;
  /** Before the first case; a target on the run's brokers has nothing to do here. */
  setup?(): Promise<void>;
  connect(): Promise<RpcTransport>;
  teardown?(): Promise<void>;
}

const text = (d: Delivery): string => Buffer.from(d.body).toString('utf8');
const bytes = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const freshTopic = (): string => `conformance.${randomUUID().slice(0, 8)}`;

/** The server a broker URL of the run names (`nats://127.0.0.1:4222`): what a transport on it should report. */
export function brokerAt(url: string): BrokerEndpoint {
  const { hostname, port } = new URL(url);
  return { address: hostname, port: Number(port) };
}

export function transportConformance(target: ConformanceTarget): void {
  describe(`${target.name} transport - conformance`, () => {
    const opened: RpcTransport[] = [];
    const open = async (): Promise<RpcTransport> => {
      const transport = await target.connect();
      opened.push(transport);
      return transport;
    };

    /** Publishes to a probe topic and waits for it: everything published earlier on `transport` has been handled. */
    async function barrier(transport: RpcTransport): Promise<void> {
      const topic = freshTopic();
      const probe = new Collector();
      const sub = await transport.subscribe(topic, probe.handler);
      await transport.publish(topic, { body: bytes('probe') });
      await probe.waitFor(1);
      await sub.close();
    }

    beforeAll(() => target.setup?.());
    afterAll(async () => {
      for (const transport of opened) await transport.close();
      await target.teardown?.();
    });

    it('transport - declares its traits', async () => {
      const transport = await open();
      expect(transport.traits).toEqual(target.expectedTraits);
    });

    it('transport - names the broker it is connected to', async () => {
      const transport = await open();
      expect(transport.brokerEndpoint).toEqual(target.expectedBroker);
    });

    it('transport - publish delivers the exact bytes, key and coordinates', async () => {
      const [a, b] = [await open(), await open()];
      const topic = freshTopic();
      const got = new Collector({ autoAck: true });
      await b.subscribe(topic, got.handler);
      await a.publish(topic, { body: bytes('{"héllo":"wörld 🚀"}'), key: 'k1' });
      const [delivery] = await got.waitFor(1);
      expect(text(delivery!)).toBe('{"héllo":"wörld 🚀"}');
      // The key exists for ordering; transports that do not order by key need not carry it.
      if (b.traits.orderedByKey) expect(delivery!.key).toBe('k1');
      expect(delivery!.coordinates.topic).toBe(topic);
      expect(delivery!.coordinates.deliveryId.length).toBeGreaterThan(0);
      expect(delivery!.attempt).toBe(1);
    });

    // A case for a trait the transport does not claim is not registered at all (rather than
    // reported as skipped): there is nothing to test. The claim itself is asserted above.
    type Case = (name: string, fn: () => Promise<void>) => void;
    const registerIf = (claim: boolean): Case => (claim ? (name, fn) => it(name, fn) : () => undefined);
    const claimed = (trait: keyof RpcTransport['traits']): Case => registerIf(target.expectedTraits[trait] === true);
    // Fan-out is claimed unless a transport declares `fanOut: false`.
    const fanOut = target.expectedTraits.fanOut !== false;

    registerIf(fanOut)('transport - subscribers without a group each get every message (fan-out)', async () => {
      const [a, b, c] = [await open(), await open(), await open()];
      const topic = freshTopic();
      const first = new Collector({ autoAck: true });
      const second = new Collector({ autoAck: true });
      await b.subscribe(topic, first.handler);
      await c.subscribe(topic, second.handler);
      for (let i = 0; i < 20; i++) await a.publish(topic, { body: bytes(`m${i}`) });
      expect((await first.waitFor(20)).map(text).sort()).toEqual((await second.waitFor(20)).map(text).sort());
    });

    it('transport - members of one group share the messages, each delivered once', async () => {
      const [a, b, c, d] = [await open(), await open(), await open(), await open()];
      const topic = freshTopic();
      const group = `g-${randomUUID().slice(0, 6)}`;
      const shared = new Collector({ autoAck: true });
      const watcher = new Collector({ autoAck: true });
      await b.subscribe(topic, shared.handler, { group });
      await c.subscribe(topic, shared.handler, { group });
      // A fan-out subscriber alongside the group sees every message too (where fan-out exists).
      if (fanOut) await d.subscribe(topic, watcher.handler);
      const sent = Array.from({ length: 40 }, (_, i) => `m${i}`);
      for (const [i, body] of sent.entries()) await a.publish(topic, { body: bytes(body), key: `key-${i}` });
      if (fanOut) expect((await watcher.waitFor(40)).map(text).sort()).toEqual([...sent].sort());
      expect((await shared.waitFor(40)).map(text).sort()).toEqual([...sent].sort());
      await barrier(a);
      expect(shared.deliveries).toHaveLength(40);
    });

    claimed('orderedByKey')('transport - messages with the same key arrive in publish order', async () => {
      const a = await open();
      const topic = freshTopic();
      const got = new Collector({ autoAck: true });
      await a.subscribe(topic, got.handler, { group: 'ordered' });
      const keys = ['k0', 'k1', 'k2', 'k3'];
      for (let i = 0; i < 200; i++) await a.publish(topic, { body: bytes(`${keys[i % 4]}:${i}`), key: keys[i % 4] });
      const received = (await got.waitFor(200)).map(text);
      for (const key of keys) {
        const seq = received.filter((m) => m.startsWith(`${key}:`)).map((m) => Number(m.split(':')[1]));
        expect(seq).toEqual([...seq].sort((x, y) => x - y));
      }
    });

    claimed('redelivery')('transport - nack redelivers with the attempt counted, ack ends it', async () => {
      const a = await open();
      const topic = freshTopic();
      const got = new Collector();
      await a.subscribe(topic, (d) => {
        got.handler(d);
        if (d.attempt < 3) d.nack({ delayMs: d.attempt === 2 ? 20 : 0 });
        else d.ack();
      }, { group: 'redelivery' });
      await a.publish(topic, { body: bytes('retry-me') });
      const deliveries = await got.waitFor(3);
      expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      expect(new Set(deliveries.map((d) => d.coordinates.deliveryId)).size).toBe(1);
      await barrier(a);
      expect(got.deliveries).toHaveLength(3);
    });

    claimed('redelivery')('transport - defer hands the message over again with the same attempt, never counted against a delivery limit', async () => {
      const a = await open();
      const topic = freshTopic();
      const got = new Collector();
      // More deferrals than JetStream's default max_deliver (5): none may count.
      await a.subscribe(topic, (d) => {
        got.handler(d);
        if (got.deliveries.length < 7) d.defer(10);
        else d.ack();
      }, { group: 'deferral' });
      await a.publish(topic, { body: bytes('later') });
      const deliveries = await got.waitFor(7);
      expect(deliveries.map((d) => d.attempt)).toEqual([1, 1, 1, 1, 1, 1, 1]);
      expect(deliveries.filter((d) => d.exhausted)).toEqual([]);
      expect(new Set(deliveries.map((d) => d.coordinates.deliveryId)).size).toBe(1);
      await barrier(a);
      expect(got.deliveries).toHaveLength(7);
    });

    it('transport - maxInflight holds back deliveries until one is settled', async () => {
      const a = await open();
      const topic = freshTopic();
      const got = new Collector();
      await a.subscribe(topic, got.handler, { group: 'bounded', maxInflight: 2 });
      for (let i = 0; i < 5; i++) await a.publish(topic, { body: bytes(`m${i}`) });
      const held = await got.waitFor(2);
      await barrier(a);
      expect(got.deliveries).toHaveLength(2);
      held[0]!.ack();
      await got.waitFor(3);
      for (const d of got.deliveries) d.ack();
      await got.waitFor(5);
      for (const d of got.deliveries) d.ack();
    });

    it('transport - a closed subscription receives nothing more', async () => {
      const a = await open();
      const topic = freshTopic();
      const got = new Collector({ autoAck: true });
      const sub = await a.subscribe(topic, got.handler);
      await a.publish(topic, { body: bytes('before') });
      await got.waitFor(1);
      await sub.close();
      await sub.close();
      await a.publish(topic, { body: bytes('after') }).catch(() => undefined);
      await barrier(a);
      expect(got.deliveries.map(text)).toEqual(['before']);
    });

    it('transport - publish after close rejects with EAGENTRPC_TRANSPORT_CLOSED; close is idempotent', async () => {
      const a = await target.connect();
      await a.close();
      await a.close();
      const error = await a.publish(freshTopic(), { body: bytes('x') }).then(() => undefined, (e: unknown) => e);
      expect(isRpcErrorWithCode(error, 'EAGENTRPC_TRANSPORT_CLOSED')).toBe(true);
    });

    it('transport - carries a 900 KiB body intact', async () => {
      const [a, b] = [await open(), await open()];
      const topic = freshTopic();
      const got = new Collector({ autoAck: true });
      await b.subscribe(topic, got.handler);
      const large = Buffer.alloc(900 * 1024);
      for (let i = 0; i < large.length; i++) large[i] = (i * 31) % 251;
      await a.publish(topic, { body: large });
      const [delivery] = await got.waitFor(1);
      expect(Buffer.compare(Buffer.from(delivery!.body), large)).toBe(0);
    });

    claimed('retainsUnconsumed')('transport - a group keeps what was published before it subscribed', async () => {
      const a = await open();
      const topic = freshTopic();
      await a.publish(topic, { body: bytes('early') });
      const got = new Collector({ autoAck: true });
      await a.subscribe(topic, got.handler, { group: 'late-joiner' });
      expect((await got.waitFor(1)).map(text)).toEqual(['early']);
    });
  });
}
