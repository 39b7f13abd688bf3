import { randomUUID } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import { AgentNode, PeerTable } from '../src/index.js';
import { mqttTransport } from '../transports/mqtt/index.js';
import type { BenchRun } from './memory-bench.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

export type MqttSystem = 'raw' | 'agent-rpc';

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchMqtt(system: MqttSystem, url: string, concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const { label, call, close } = await (system === 'raw' ? rawMqtt(url) : agentRpcMqtt(url));
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

/**
 * The plain MQTT.js 5 request/response: QoS 1 both ways, the responder answers on the
 * request's response topic with its correlation data, the requester matches replies by it.
 * The same QoS and MQTT 5 features the transport uses, so the comparison is about the pipeline.
 */
async function rawMqtt(url: string): Promise<Runner> {
  const run = randomUUID().slice(0, 8);
  const requests = `bench/raw/${run}/requests`;
  const replies = `bench/raw/${run}/replies`;
  const options = { protocolVersion: 5, clean: true, reconnectPeriod: 0 } as const;
  const responder: MqttClient = await connectAsync(url, { ...options, clientId: `bench-responder-${run}` });
  const requester: MqttClient = await connectAsync(url, { ...options, clientId: `bench-requester-${run}` });
  // As the transport does: no Nagle delay on small packets.
  for (const client of [responder, requester]) (client.stream as { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
  responder.on('message', (_topic, payload, packet) => {
    const responseTopic = packet.properties?.responseTopic;
    if (responseTopic) responder.publish(responseTopic, payload, { qos: 1, properties: { correlationData: packet.properties?.correlationData } });
  });
  await responder.subscribeAsync(requests, { qos: 1 });
  const waiting = new Map<string, () => void>();
  requester.on('message', (_topic, _payload, packet) => {
    const id = packet.properties?.correlationData?.toString();
    if (id) waiting.get(id)?.();
  });
  await requester.subscribeAsync(replies, { qos: 1 });
  const body = Buffer.from(JSON.stringify(BENCH_PAYLOAD));
  let next = 0;
  return {
    label: 'raw MQTT.js 5 request/response (QoS 1)',
    call: () =>
      new Promise<boolean>((resolve) => {
        const id = String(next++);
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve(false);
        }, 10_000);
        waiting.set(id, () => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(true);
        });
        requester.publish(requests, body, { qos: 1, properties: { responseTopic: replies, correlationData: Buffer.from(id) } });
      }),
    close: async () => {
      await requester.endAsync();
      await responder.endAsync();
    },
  };
}

async function agentRpcMqtt(url: string): Promise<Runner> {
  const run = randomUUID().slice(0, 8);
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'mqtt' }] }]);
  // Short sessions: the broker forgets the bench's sessions soon after it ends.
  const transport = (name: string) => mqttTransport({ url, clientId: `bench-${name}-${run}`, topicPrefix: `bench/${run}/`, sessionExpiryS: 60 });
  const echo = new AgentNode({ id: 'echo', transports: [transport('echo')], peers });
  const caller = new AgentNode({ id: 'caller', transports: [transport('caller')], peers });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: 'agent-rpc sync call (MQTT)',
    call: async () => (await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD })).status === 'ok',
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
