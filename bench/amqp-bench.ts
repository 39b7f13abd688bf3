import { randomBytes } from 'node:crypto';
import { Connection } from 'rabbitmq-client';
import { AgentNode, PeerTable, PrometheusMetrics } from '../src/index.js';
import { benchNodeOptions, type BenchAuth } from './bench-auth.js';
import { amqpTransport } from '../transports/amqp/index.js';
import type { BenchRun } from './memory-bench.js';
import { BENCH_PAYLOAD } from './payload.js';
import { closedLoop } from './stats.js';

/**
 * Request/reply over one RabbitMQ, responder in the same process, each system measured the
 * same way (closed loop, C calls in flight), every reply checked against its request.
 * - `raw`: rabbitmq-client's own RPC client (direct reply-to) against a consumer that
 *   replies; confirms on the request, which goes non-persistent to a non-durable queue.
 * - `raw-durable`: the same exchange with what an agent-rpc inbox guarantees: requests
 *   persistent in a durable queue through a durable exchange, every publish (request and
 *   reply) confirmed, the request acked after its reply was confirmed, replies to a queue of
 *   the requester's own, acked after they were matched.
 * - `agent-rpc`: sync calls between two nodes with what `agent-rpc serve` has on (decode
 *   limits, dedupe, guard, Prometheus metrics).
 */
export const AMQP_SYSTEMS = ['raw', 'raw-durable', 'agent-rpc', 'agent-rpc-hmac'] as const;
export type AmqpSystem = (typeof AMQP_SYSTEMS)[number];

interface Runner {
  label: string;
  call: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function benchAmqp(system: AmqpSystem, url: string, concurrency: number, warmupMs: number, measureMs: number): Promise<BenchRun> {
  const runners = { raw: rawAmqp, 'raw-durable': rawAmqpDurable, 'agent-rpc': (u: string) => agentRpcAmqp(u, 'internal'), 'agent-rpc-hmac': (u: string) => agentRpcAmqp(u, 'hmac') };
  const { label, call, close } = await runners[system](url);
  try {
    return { system: label, concurrency, figures: await closedLoop(call, concurrency, warmupMs, measureMs) };
  } finally {
    await close();
  }
}

const REQUEST_BODY = Buffer.from(JSON.stringify(BENCH_PAYLOAD));

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
  return {
    label: 'raw rabbitmq-client RPC (direct reply-to, confirms, noDelay)',
    call: () => client.send(queue, REQUEST_BODY).then((reply) => REQUEST_BODY.equals(reply.body as Buffer), () => false),
    close: async () => {
      await client.close();
      await responder.close();
      await requesterConnection.close();
      await responderConnection.close();
    },
  };
}

async function rawAmqpDurable(url: string): Promise<Runner> {
  const responderConnection = new Connection({ url, noDelay: true });
  const requesterConnection = new Connection({ url, noDelay: true });
  const run = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const exchange = `bench.durable.${run}`;
  const queue = `bench.durable.${run}.requests`;
  const replyQueue = `bench.durable.${run}.replies`;
  const exchanges = [{ exchange, type: 'direct' as const, durable: true }];
  await requesterConnection.exchangeDeclare(exchanges[0]!);
  await requesterConnection.queueDeclare({ queue, durable: true });
  await requesterConnection.queueBind({ exchange, queue, routingKey: queue });
  const replyPublisher = responderConnection.createPublisher({ confirm: true });
  const responder = responderConnection.createConsumer({ queue, queueOptions: { durable: true }, qos: { prefetchCount: 256 }, concurrency: 256 }, async (msg) => {
    // Resolving acks the request: only once its reply is confirmed, as the inbox answers.
    await replyPublisher.send({ exchange, routingKey: msg.replyTo!, correlationId: msg.correlationId!, durable: false }, msg.body);
  });
  const waiting = new Map<string, (body: Buffer) => void>();
  const replies = requesterConnection.createConsumer(
    { queue: replyQueue, queueOptions: { exclusive: true, autoDelete: true }, queueBindings: [{ exchange, queue: replyQueue, routingKey: replyQueue }], exchanges, qos: { prefetchCount: 256 }, concurrency: 256 },
    (msg) => {
      const id = msg.correlationId;
      if (id !== undefined) waiting.get(id)?.(msg.body as Buffer);
    },
  );
  await Promise.all([responder, replies].map((consumer) => new Promise<void>((resolve) => consumer.once('ready', resolve))));
  const publisher = requesterConnection.createPublisher({ confirm: true });
  let next = 0;
  return {
    label: 'raw rabbitmq-client request/reply (durable queue, persistent, confirms both ways, ack after reply)',
    call: () =>
      new Promise<boolean>((resolve) => {
        const id = String(next++);
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(ok);
        };
        const timer = setTimeout(() => done(false), 10_000);
        waiting.set(id, (body) => done(REQUEST_BODY.equals(body)));
        publisher.send({ exchange, routingKey: queue, correlationId: id, replyTo: replyQueue, durable: true }, REQUEST_BODY).catch(() => done(false));
      }),
    close: async () => {
      await publisher.close();
      await replies.close();
      await responder.close();
      await replyPublisher.close();
      await requesterConnection.queueDelete({ queue });
      await requesterConnection.exchangeDelete({ exchange });
      await requesterConnection.close();
      await responderConnection.close();
    },
  };
}

async function agentRpcAmqp(url: string, auth: BenchAuth): Promise<Runner> {
  const peers = new PeerTable([{ id: 'echo', routes: [{ kind: 'amqp' }] }]);
  const { options, label } = benchNodeOptions(auth, 'implicit');
  const prefix = `bench${process.pid}.`;
  // As the daemon does: one registry for the process, each node's series under its id.
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const node = (id: string) => new AgentNode({ id, transports: [amqpTransport({ url, prefix, metrics: metrics.forAgent(id) })], peers, ...options, metrics: metrics.forAgent(id) });
  const echo = node('echo');
  const caller = node('caller');
  echo.handle('echo', (input) => input);
  await echo.start();
  await caller.start();
  return {
    label: `agent-rpc sync call (AMQP${label})`,
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
