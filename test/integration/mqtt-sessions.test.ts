import { randomUUID } from 'node:crypto';
import { connectAsync, type IPublishPacket } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcTransport } from '../../src/transport.js';
import { Collector } from '../support/collector.js';
import { runMqtt, type RunMqtt } from '../support/mqtt-target.js';

const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');

describe('mqtt transport - sessions, topics and expiry', () => {
  let mqtt: RunMqtt;
  const opened: RpcTransport[] = [];
  const open = async (clientId: string): Promise<RpcTransport> => {
    const transport = await mqtt.transport({ clientId });
    opened.push(transport);
    return transport;
  };

  beforeAll(async () => {
    mqtt = await runMqtt();
  });
  afterAll(async () => {
    for (const transport of opened) await transport.close();
  });

  it('mqtt transport - an agent that was away gets the requests sent to its group meanwhile', async () => {
    const clientId = `away-${randomUUID()}`;
    const topic = `agents.away${randomUUID().slice(0, 6)}.requests`;
    const first = await open(clientId);
    await first.subscribe(topic, new Collector({ autoAck: true }).handler, { group: 'inbox' });
    await first.close(); // the session and its subscription stay with the broker
    const sender = await open(`sender-${randomUUID()}`);
    for (const body of ['one', 'two', 'three']) await sender.publish(topic, { body: Buffer.from(body) });
    const back = await open(clientId);
    const got = new Collector({ autoAck: true });
    await back.subscribe(topic, got.handler, { group: 'inbox' });
    expect((await got.waitFor(3)).map((d) => text(d.body)).sort()).toEqual(['one', 'three', 'two']);
  });

  it('mqtt transport - dots become topic levels behind the prefix; the deadline becomes the message expiry', async () => {
    const id = `x${randomUUID().slice(0, 6)}`;
    const watcher = await connectAsync(mqtt.url, { protocolVersion: 5, clientId: `watch-${randomUUID()}`, clean: true });
    try {
      const seen = new Promise<IPublishPacket>((resolve) => watcher.on('message', (_topic, _payload, packet) => resolve(packet)));
      await watcher.subscribeAsync(`${mqtt.topicPrefix}agents/+/requests`, { qos: 1 });
      const sender = await open(`sender-${randomUUID()}`);
      await sender.publish(`agents.${id}.requests`, { body: Buffer.from('with a deadline'), expiresAt: Date.now() + 30_000 });
      const packet = await seen;
      expect(packet.topic).toBe(`${mqtt.topicPrefix}agents/${id}/requests`);
      const expiry = packet.properties?.messageExpiryInterval ?? 0;
      expect(expiry).toBeGreaterThan(0);
      expect(expiry).toBeLessThanOrEqual(30);
    } finally {
      await watcher.endAsync(true);
    }
  });

  it('mqtt transport - a topic holding a wildcard is refused with EAGENTRPC_PUBLISH_FAILED', async () => {
    const sender = await open(`sender-${randomUUID()}`);
    const error = await sender.publish('agents.+.requests', { body: Buffer.from('x') }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'EAGENTRPC_PUBLISH_FAILED' });
  });
});
