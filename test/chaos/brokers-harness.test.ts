import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners, type Consumer } from 'kafkajs';
import { connect, StringCodec, type NatsConnection, type Subscription } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureKafkaJars, startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/kafka-server.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/nats-server.js';

const sc = StringCodec();
// The first run downloads Kafka's jars with Maven; later runs start from the cache.
const KAFKA_START_TIMEOUT_MS = 15 * 60_000;

function nextMessage(sub: Subscription): Promise<string> {
  return (async () => {
    for await (const message of sub) return sc.decode(message.data);
    throw new Error(`subscription ${sub.getSubject()} closed without a message`);
  })();
}

async function natsRoundTrip(nc: NatsConnection, payload: string): Promise<string> {
  const subject = `harness.${randomUUID()}`;
  const received = nextMessage(nc.subscribe(subject, { max: 1 }));
  await nc.flush(); // the server knows the subscription before the publish
  nc.publish(subject, sc.encode(payload));
  return received;
}

async function waitForStatus(nc: NatsConnection, type: string): Promise<void> {
  for await (const status of nc.status()) if (status.type === type) return;
}

describe('brokers - nats-server', () => {
  let server: NatsServerHandle;
  const connections: NatsConnection[] = [];
  const connectTo = async (url: string): Promise<NatsConnection> => {
    const nc = await connect({ servers: url, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
    connections.push(nc);
    return nc;
  };

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(connections.map((nc) => nc.close()));
    await server?.stop();
  }, 30_000);

  it('brokers - nats starts on a free loopback port and a client publishes and receives', async () => {
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(4222);
    const nc = await connectTo(server.url);
    expect(await natsRoundTrip(nc, 'hello')).toBe('hello');
  });

  it('brokers - nats client reconnects after kill and restart on the same port', async () => {
    const nc = await connectTo(server.url);
    const subject = `harness.${randomUUID()}`;
    const sub = nc.subscribe(subject, { max: 1 });
    await nc.flush();
    const oldPid = server.pid;
    const disconnected = waitForStatus(nc, 'disconnect');
    const reconnected = waitForStatus(nc, 'reconnect');

    await server.kill();
    await disconnected;
    await server.restart();
    await reconnected;

    expect(server.pid).not.toBe(oldPid);
    const received = nextMessage(sub); // subscribed before the crash, resent on reconnect
    nc.publish(subject, sc.encode('after restart'));
    expect(await received).toBe('after restart');
    expect(await natsRoundTrip(nc, 'fresh subscription')).toBe('fresh subscription');
  });

  it('brokers - a JetStream stream and its messages survive a restart', async () => {
    const stream = `harness_${randomUUID().replaceAll('-', '')}`;
    const subject = `${stream}.events`;
    const nc = await connectTo(server.url);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [subject] });
    const ack = await nc.jetstream().publish(subject, sc.encode('kept'));
    expect(ack.seq).toBe(1);

    await nc.close();
    await server.stop();
    await server.restart();

    const again = await connectTo(server.url);
    const jsmAgain = await again.jetstreamManager();
    const info = await jsmAgain.streams.info(stream);
    expect(info.state.messages).toBe(1);
    const stored = await jsmAgain.streams.getMessage(stream, { seq: 1 });
    expect(sc.decode(stored.data)).toBe('kept');
  });
});

describe('brokers - kafka', () => {
  let server: KafkaServerHandle;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    server = await startKafkaServer();
  }, KAFKA_START_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.allSettled(consumers.map((consumer) => consumer.disconnect()));
    await server?.stop();
  }, 60_000);

  const client = (): Kafka => new Kafka({ clientId: 'brokers-harness-test', brokers: server.brokers, logLevel: logLevel.NOTHING });

  async function createTopicWith(value: string): Promise<string> {
    const topic = `harness-${randomUUID()}`;
    const admin = client().admin();
    await admin.connect();
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })).toBe(true);
    await admin.disconnect();
    const producer = client().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic, messages: [{ value }] });
    await producer.disconnect();
    return topic;
  }

  async function readFirstMessage(topic: string): Promise<string> {
    const consumer = client().consumer({ groupId: `harness-${randomUUID()}` });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const first = new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString('utf8') ?? '') });
    });
    const value = await first;
    await consumer.disconnect();
    return value;
  }

  it('brokers - kafka round-trips a message on a fresh topic', async () => {
    expect(server.brokers).toEqual([`127.0.0.1:${server.brokerPort}`]);
    const topic = await createTopicWith('hello kafka');
    expect(await readFirstMessage(topic)).toBe('hello kafka');
  }, 60_000);

  it('brokers - kafka keeps a topic and its data across kill and restart', async () => {
    const topic = await createTopicWith('before the crash');

    const oldPid = server.pid;
    await server.kill();
    await server.restart();
    expect(server.pid).not.toBe(oldPid);

    const adminAgain = client().admin();
    await adminAgain.connect();
    expect(await adminAgain.listTopics()).toContain(topic);
    await adminAgain.disconnect();
    expect(await readFirstMessage(topic)).toBe('before the crash');
  }, 120_000);

  it('brokers - a second ensureKafkaJars returns the cached jars without running Maven', async () => {
    let mavenRuns = 0;
    const libs = await ensureKafkaJars({
      runMaven: () => {
        mavenRuns += 1;
        return Promise.reject(new Error('Maven must not run when the jars are cached'));
      },
    });
    expect(mavenRuns).toBe(0);
    expect(libs).toMatch(/kafka-3\.9\.\d+[\\/]libs$/);
  });
});
