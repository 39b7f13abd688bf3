import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { AgentNode, PeerTable } from '../src/index.js';
import { kafkaTransport } from '../transports/kafka/index.js';
import type { BenchRun } from './memory-bench.js';
import { benchNodeOptions, isEchoed } from './bench-auth.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

export type KafkaSystem = 'raw' | 'agent-rpc';

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchKafka(system: KafkaSystem, brokers: string[], concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const { label, call, close } = await (system === 'raw' ? rawKafka(brokers) : agentRpcKafka(brokers));
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

/**
 * The plain kafkajs ping-pong: produce a request, a responder consumes it and produces
 * the reply, the requester consumes replies and matches them by id. Same consumer tuning
 * as the transport (minBytes 1, maxWaitTimeInMs 10) so the comparison is about the
 * pipeline, not about fetch settings.
 */
async function rawKafka(brokers: string[]): Promise<Runner> {
  const kafka = new Kafka({ brokers, clientId: 'bench-raw', logLevel: logLevel.NOTHING });
  const run = randomUUID().slice(0, 8);
  const requests = `bench.raw.${run}.requests`;
  const replies = `bench.raw.${run}.replies`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: requests, numPartitions: 3 }, { topic: replies, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const consumerOptions = { maxWaitTimeInMs: 10, minBytes: 1 };
  const responder = kafka.consumer({ groupId: `bench-responder-${run}`, ...consumerOptions });
  const requester = kafka.consumer({ groupId: `bench-requester-${run}`, ...consumerOptions });
  const waiting = new Map<string, () => void>();
  await responder.connect();
  await responder.subscribe({ topics: [requests], fromBeginning: true });
  await responder.run({
    eachMessage: async ({ message }) => {
      await producer.send({ topic: replies, messages: [{ key: message.key, value: message.value }] });
    },
  });
  await requester.connect();
  await requester.subscribe({ topics: [replies], fromBeginning: true });
  await requester.run({
    eachMessage: async ({ message }) => {
      const id = message.key?.toString() ?? '';
      waiting.get(id)?.();
      waiting.delete(id);
    },
  });
  const body = Buffer.from(JSON.stringify(BENCH_PAYLOAD));
  return {
    label: 'raw kafkajs produce→consume→reply',
    call: () =>
      new Promise<boolean>((resolve) => {
        const id = randomUUID();
        waiting.set(id, () => resolve(true));
        producer.send({ topic: requests, messages: [{ key: id, value: body }] }).catch(() => resolve(false));
      }),
    close: async () => {
      await requester.disconnect();
      await responder.disconnect();
      await producer.disconnect();
    },
  };
}

async function agentRpcKafka(brokers: string[]): Promise<Runner> {
  // Fresh topics per run, so no run reads another's leftovers.
  const run = randomUUID().slice(0, 8);
  const topics = { requests: `bench.${run}.echo.requests` };
  const { options: options } = benchNodeOptions('internal', 'implicit');
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'kafka', requestsTopic: topics.requests }] }]);
  const echo = new AgentNode({ id: 'echo', transports: [kafkaTransport({ brokers, clientId: 'bench-echo' })], peers, topics, ...options });
  const caller = new AgentNode({ id: 'caller', transports: [kafkaTransport({ brokers, clientId: 'bench-caller' })], peers, instanceId: run, ...options });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: 'agent-rpc sync call (Kafka)',
    call: async () => isEchoed(await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD, timeoutMs: 30_000 })),
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
