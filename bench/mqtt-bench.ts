import { randomUUID } from 'node:crypto';
import { connectAsync, type IPublishPacket, type MqttClient } from 'mqtt';
import { AgentNode, PeerTable, PrometheusMetrics } from '../src/index.js';
import { mqttTransport } from '../transports/mqtt/index.js';
import type { BenchRun } from './memory-bench.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

export const MQTT_SYSTEMS = ['raw', 'raw-session', 'agent-rpc'] as const;
export type MqttSystem = (typeof MQTT_SYSTEMS)[number];

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchMqtt(system: MqttSystem, url: string, concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const runners = { raw: (u: string) => rawMqtt(u, false), 'raw-session': (u: string) => rawMqtt(u, true), 'agent-rpc': agentRpcMqtt };
  const { label, call, close } = await runners[system](url);
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

/**
 * The plain MQTT.js 5 request/response: QoS 1 both ways, the responder answers on the
 * request's response topic with its correlation data, the requester matches replies by it
 * and checks each reply's bytes. The same QoS and MQTT 5 features the transport uses, so the
 * comparison is about the pipeline.
 * `session`: also what the transport adds to QoS 1: persistent sessions (clean start off,
 * a session expiry) and the request's PUBACK sent only once its reply was PUBACKed (MQTT.js
 * acks when its handler returns; the bench sends the PUBACK itself, as the transport does).
 */
async function rawMqtt(url: string, session: boolean): Promise<Runner> {
  const run = randomUUID().slice(0, 8);
  const requests = `bench/raw/${run}/requests`;
  const replies = `bench/raw/${run}/replies`;
  const options = session ? ({ protocolVersion: 5, clean: false, properties: { sessionExpiryInterval: 60 }, reconnectPeriod: 0 } as const) : ({ protocolVersion: 5, clean: true, reconnectPeriod: 0 } as const);
  const responder: MqttClient = await connectAsync(url, { ...options, clientId: `bench-responder-${run}` });
  const requester: MqttClient = await connectAsync(url, { ...options, clientId: `bench-requester-${run}` });
  // As the transport does: no Nagle delay on small packets.
  for (const client of [responder, requester]) (client.stream as { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
  const reply = (packet: IPublishPacket, then?: () => void): void => {
    const responseTopic = packet.properties?.responseTopic;
    if (responseTopic) responder.publish(responseTopic, packet.payload as Buffer, { qos: 1, properties: { correlationData: packet.properties?.correlationData } }, then);
  };
  if (session) {
    responder.handleMessage = (packet, callback) => {
      const { messageId } = packet;
      reply(packet, () => (responder as unknown as { _sendPacket(p: object): void })._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 }));
      // An error here tells MQTT.js not to send the PUBACK itself.
      callback(new Error('acked after the reply'));
    };
  } else {
    responder.on('message', (_topic, _payload, packet) => reply(packet));
  }
  await responder.subscribeAsync(requests, { qos: 1 });
  const waiting = new Map<string, (payload: Buffer) => void>();
  requester.on('message', (_topic, payload, packet) => {
    const id = packet.properties?.correlationData?.toString();
    if (id) waiting.get(id)?.(payload);
  });
  await requester.subscribeAsync(replies, { qos: 1 });
  let next = 0;
  return {
    label: session ? 'raw MQTT.js 5 request/response (QoS 1, persistent sessions, PUBACK after reply)' : 'raw MQTT.js 5 request/response (QoS 1)',
    call: () =>
      new Promise<boolean>((resolve) => {
        const id = String(next++);
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(ok);
        };
        const timer = setTimeout(() => done(false), 10_000);
        waiting.set(id, (payload) => done(REQUEST_BODY.equals(payload)));
        requester.publish(requests, REQUEST_BODY, { qos: 1, properties: { responseTopic: replies, correlationData: Buffer.from(id) } });
      }),
    close: async () => {
      await requester.endAsync();
      await responder.endAsync();
    },
  };
}

const REQUEST_BODY = Buffer.from(JSON.stringify(BENCH_PAYLOAD));

async function agentRpcMqtt(url: string): Promise<Runner> {
  const run = randomUUID().slice(0, 8);
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'mqtt' }] }]);
  // Short sessions: the broker forgets the bench's sessions soon after it ends.
  // As the daemon does: one registry for the process, each node's series under its id.
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const node = (id: string) =>
    new AgentNode({ id, transports: [mqttTransport({ url, clientId: `bench-${id}-${run}`, topicPrefix: `bench/${run}/`, sessionExpiryS: 60, metrics: metrics.forAgent(id) })], peers, metrics: metrics.forAgent(id) });
  const echo = node('echo');
  const caller = node('caller');
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: 'agent-rpc sync call (MQTT)',
    call: async () => {
      const result = await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD });
      return result.status === 'ok' && (result.response as typeof BENCH_PAYLOAD).id === BENCH_PAYLOAD.id;
    },
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
