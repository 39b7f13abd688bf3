import { randomUUID } from 'node:crypto';
import { connect, connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMosquittoServer, type MosquittoServerHandle } from '../../tools/brokers/mosquitto-server.js';

/** The next message on `topic` a client receives. */
function nextMessage(client: MqttClient, topic: string): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (received: string, payload: Buffer): void => {
      if (received !== topic) return;
      client.off('message', onMessage);
      resolve(payload.toString('utf8'));
    };
    client.on('message', onMessage);
  });
}

describe('brokers - mosquitto', () => {
  let server: MosquittoServerHandle;
  const clients: MqttClient[] = [];
  const connectTo = async (clientId: string, clean: boolean): Promise<MqttClient> => {
    const client = await connectAsync(server.url, { protocolVersion: 5, clientId, clean, reconnectPeriod: 50, properties: { sessionExpiryInterval: 600 } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startMosquittoServer();
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.endAsync(true)));
    await server?.stop();
  }, 30_000);

  it('brokers - mosquitto starts on a free loopback port and a client publishes and receives', async () => {
    expect(server.url).toBe(`mqtt://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(1883);
    const client = await connectTo(`harness-${randomUUID()}`, true);
    const topic = `harness/${randomUUID()}`;
    await client.subscribeAsync(topic, { qos: 1 });
    const received = nextMessage(client, topic);
    await client.publishAsync(topic, 'hello', { qos: 1 });
    expect(await received).toBe('hello');
  });

  it('brokers - a persistent session and its queued message survive a stop and restart', async () => {
    const clientId = `harness-${randomUUID()}`;
    const topic = `harness/${randomUUID()}`;
    const subscriber = await connectTo(clientId, false);
    await subscriber.subscribeAsync(topic, { qos: 1 });
    await subscriber.endAsync();
    const publisher = await connectTo(`harness-${randomUUID()}`, true);
    await publisher.publishAsync(topic, 'queued while away', { qos: 1 });
    await publisher.endAsync();

    const oldPid = server.pid;
    await server.restart();
    expect(server.pid).not.toBe(oldPid);

    // Listening before the connection: the queued message may follow the CONNACK at once.
    const back = connect(server.url, { protocolVersion: 5, clientId, clean: false, properties: { sessionExpiryInterval: 600 } });
    clients.push(back);
    // The session is back with its subscription: the queued message arrives without subscribing again.
    expect(await nextMessage(back, topic)).toBe('queued while away');
  });

  it('brokers - a client reconnects after kill and restart on the same port', async () => {
    const client = await connectTo(`harness-${randomUUID()}`, true);
    const reconnected = new Promise<void>((resolve) => client.once('offline', () => client.once('connect', () => resolve())));
    await server.kill();
    await server.restart();
    await reconnected;
    const topic = `harness/${randomUUID()}`;
    await client.subscribeAsync(topic, { qos: 1 });
    const received = nextMessage(client, topic);
    await client.publishAsync(topic, 'after restart', { qos: 1 });
    expect(await received).toBe('after restart');
  });
});
