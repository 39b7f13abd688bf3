import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AgentNode, PeerTable } from '../src/index.js';
import { sqsTransport } from '../transports/sqs/index.js';
import type { BenchRun } from './memory-bench.js';
import { benchNodeOptions, isEchoed } from './bench-auth.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

export type SqsSystem = 'raw' | 'agent-rpc';

// ElasticMQ takes any credentials; the SDK needs some to sign with.
const CONNECTION = { region: 'elasticmq', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } } as const;

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchSqs(system: SqsSystem, endpoint: string, concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const { label, call, close } = await (system === 'raw' ? rawSqs(endpoint) : agentRpcSqs(endpoint));
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

/** Receive up to 10, handle each, delete it: the loop the transport runs, without agent-rpc. */
function pollLoop(client: SQSClient, queueUrl: string, signal: AbortSignal, handle: (body: string, attributes: Record<string, string>) => Promise<void> | void): void {
  void (async () => {
    while (!signal.aborted) {
      const { Messages = [] } = await client
        .send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'] }), { abortSignal: signal })
        .catch(() => ({ Messages: [] }));
      for (const message of Messages) {
        const attributes = Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']));
        void Promise.resolve(handle(message.Body ?? '', attributes))
          .then(() => client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle })))
          .catch(() => undefined); // after close the queue is gone; a lost reply times its call out below
      }
    }
  })();
}

/**
 * The plain @aws-sdk/client-sqs ping-pong: send a request to a queue, a responder receives
 * it, sends the reply to a reply queue and deletes the request; the requester receives
 * replies, matches them by id and deletes them. The same receive settings as the transport.
 */
async function rawSqs(endpoint: string): Promise<Runner> {
  // The transport's socket pool, so the comparison is about the pipeline, not the pool size.
  const agent = { keepAlive: true, maxSockets: 256 };
  const client = new SQSClient({ endpoint, ...CONNECTION, requestHandler: { httpAgent: agent, httpsAgent: agent } });
  const run = randomUUID().slice(0, 8);
  const create = async (QueueName: string): Promise<string> => (await client.send(new CreateQueueCommand({ QueueName }))).QueueUrl as string;
  const [requests, replies] = [await create(`bench-raw-${run}-requests`), await create(`bench-raw-${run}-replies`)];
  const stop = new AbortController();
  const waiting = new Map<string, () => void>();
  pollLoop(client, requests, stop.signal, async (body, attributes) => {
    await client.send(new SendMessageCommand({ QueueUrl: replies, MessageBody: body, MessageAttributes: { id: { DataType: 'String', StringValue: attributes['id'] ?? '' } } }));
  });
  pollLoop(client, replies, stop.signal, (_body, attributes) => {
    const id = attributes['id'] ?? '';
    waiting.get(id)?.();
    waiting.delete(id);
  });
  const body = JSON.stringify(BENCH_PAYLOAD);
  return {
    label: 'raw @aws-sdk/client-sqs send→receive→reply',
    call: () =>
      new Promise<boolean>((resolve) => {
        const id = randomUUID();
        // The same 30 s bound as the agent-rpc call: a lost message counts as an error, never hangs the loop.
        const timer = setTimeout(() => (waiting.delete(id), resolve(false)), 30_000);
        waiting.set(id, () => (clearTimeout(timer), resolve(true)));
        client.send(new SendMessageCommand({ QueueUrl: requests, MessageBody: body, MessageAttributes: { id: { DataType: 'String', StringValue: id } } })).catch(() => resolve(false));
      }),
    close: async () => {
      stop.abort();
      await Promise.allSettled([requests, replies].map((QueueUrl) => client.send(new DeleteQueueCommand({ QueueUrl }))));
      client.destroy();
    },
  };
}

async function agentRpcSqs(endpoint: string): Promise<Runner> {
  const run = randomUUID().slice(0, 8);
  const options = { endpoint, ...CONNECTION, queuePrefix: `bench-${run}-`, waitTimeMs: 1_000 };
  const { options: nodeOptions } = benchNodeOptions('internal', 'implicit');
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'sqs' }] }]);
  const echo = new AgentNode({ id: 'echo', transports: [sqsTransport(options)], peers, ...nodeOptions });
  const caller = new AgentNode({ id: 'caller', transports: [sqsTransport(options)], peers, instanceId: run, ...nodeOptions });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: 'agent-rpc sync call (SQS)',
    call: async () => isEchoed(await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD, timeoutMs: 30_000 })),
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
