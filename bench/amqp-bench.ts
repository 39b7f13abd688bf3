import { Connection } from 'rabbitmq-client';
import { AgentNode, PeerTable } from '../src/index.js';
import { benchNodeOptions, type BenchAuth } from './bench-auth.js';
import { amqpTransport } from '../transports/amqp/index.js';
import type { BenchRun } from './memory-bench.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

/**
 * Request/reply over one RabbitMQ, responder in the same process, each system measured the
 * same way (closed loop, C calls in flight). The raw side is rabbitmq-client's own RPC client
 * (direct reply-to) against a consumer that replies, with publisher confirms on the request
 * as agent-rpc has them.
 */
export type AmqpSystem = 'raw' | 'agent-rpc' | 'agent-rpc-hmac';

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchAmqp(system: AmqpSystem, url: string, concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const runners = { raw: rawAmqp, 'agent-rpc': (u: string) => agentRpcAmqp(u, 'internal'), 'agent-rpc-hmac': (u: string) => agentRpcAmqp(u, 'hmac') };
  const { label, call, close } = await runners[system](url);
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

async function rawAmqp(url: string): Promise<Runner> {
  // noDelay as the transport sets it: otherwise Nagle's algorithm adds ~40 ms to a lone call.
  const responderConnection = new Connection({ url, noDelay: true });
  const requesterConnection = new Connection({ url, noDelay: true });
  const queue = `bench.echo.${process.pid}`;
  const responder = responderConnection.createConsumer({ queue, queueOptions: { exclusive: true }, qos: { prefetchCount: 256 }, concurrency: 256 }, async (msg, reply) => {
    await reply(msg.body);
  });
  await new Promise<void>((resolve) => responder.once('ready', resolve));
  const client = requesterConnection.createRPCClient({ confirm: true, timeout: 10_000 });
  const body = Buffer.from(JSON.stringify(BENCH_PAYLOAD));
  return {
    label: 'raw rabbitmq-client RPC (direct reply-to, confirms, noDelay)',
    call: () => client.send(queue, body).then(() => true, () => false),
    close: async () => {
      await client.close();
      await responder.close();
      await requesterConnection.close();
      await responderConnection.close();
    },
  };
}

async function agentRpcAmqp(url: string, auth: BenchAuth): Promise<Runner> {
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'amqp' }] }]);
  const { options, label } = benchNodeOptions(auth, 'implicit');
  const prefix = `bench${process.pid}.`;
  const echo = new AgentNode({ id: 'echo', transports: [amqpTransport({ url, prefix })], peers, ...options });
  const caller = new AgentNode({ id: 'caller', transports: [amqpTransport({ url, prefix })], peers, ...options });
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: `agent-rpc sync call (AMQP${label})`,
    call: async () => (await caller.requestAgent({ to: 'agent://echo', capability: 'echo', payload: BENCH_PAYLOAD })).status === 'ok',
    close: async () => {
      await caller.close();
      await echo.close();
    },
  };
}
