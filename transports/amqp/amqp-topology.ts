import { randomBytes } from 'node:crypto';
import type { Connection } from 'rabbitmq-client';
import { RpcError } from '../../src/errors.js';

/**
 * The names and settings of what the transport declares on the broker:
 * - one durable direct exchange, `<prefix>agentrpc`: every publish goes there with the topic
 *   as routing key, so each queue bound to a topic gets a copy (fan-out);
 * - per durable topic (an agent inbox) one durable classic queue named after the topic,
 *   shared by every subscriber with a group (the agent's replicas), declared by the first
 *   publisher or subscriber so nothing published before a subscriber arrives is lost. A
 *   message nacked `maxDeliver` times is rejected without requeue, and the broker
 *   dead-letters it to `<prefix>agentrpc.dlx`, into the topic's `<topic>.dead` queue, which
 *   the subscribers hand to the inbox once more, flagged exhausted, for the DLQ. Classic,
 *   not quorum: RabbitMQ 3.10 can bring a quorum queue created moments before a crash back
 *   without a leader, and its inbox would never be consumed again;
 * - per subscriber without a group (and per ephemeral topic, a node's replies) an exclusive,
 *   auto-delete queue that lives as long as its connection.
 */
export interface Topology {
  readonly exchange: string;
  readonly deadLetterExchange: string;
  readonly prefix: string;
}

export function topologyOf(prefix: string): Topology {
  return { exchange: `${prefix}agentrpc`, deadLetterExchange: `${prefix}agentrpc.dlx`, prefix };
}

export const inboxQueue = (t: Topology, topic: string): string => `${t.prefix}${topic}`;
export const deadQueue = (t: Topology, topic: string): string => `${t.prefix}${topic}.dead`;
/** A fan-out subscriber's own queue: unique, so two subscribers of one topic in one process never meet. */
export const privateQueue = (t: Topology, topic: string): string => `${t.prefix}${topic}.${randomBytes(6).toString('hex')}`;

export const exchangeDeclarations = (t: Topology) => [
  { exchange: t.exchange, type: 'direct' as const, durable: true },
  { exchange: t.deadLetterExchange, type: 'direct' as const, durable: true },
];

export function inboxQueueDeclaration(t: Topology, topic: string) {
  return {
    queue: inboxQueue(t, topic),
    durable: true,
    // A republished nack carries the queue's name as its routing key: dead-letter under the topic's.
    arguments: { 'x-queue-type': 'classic' as const, 'x-dead-letter-exchange': t.deadLetterExchange, 'x-dead-letter-routing-key': topic },
  };
}

export const deadQueueDeclaration = (t: Topology, topic: string) => ({ queue: deadQueue(t, topic), durable: true });

export const inboxBindings = (t: Topology, topic: string) => [
  { exchange: t.exchange, queue: inboxQueue(t, topic), routingKey: topic },
  { exchange: t.deadLetterExchange, queue: deadQueue(t, topic), routingKey: topic },
];

/**
 * Declares the exchanges, a durable topic's queues and their bindings. Declarations are
 * idempotent on the broker; a different setting of an existing queue (declared by another
 * version, with other arguments) is EAGENTRPC_BROKER_SETUP_FAILED naming the topic.
 */
export async function declareInbox(rabbit: Connection, t: Topology, topic: string): Promise<void> {
  try {
    for (const exchange of exchangeDeclarations(t)) await rabbit.exchangeDeclare(exchange);
    await rabbit.queueDeclare(inboxQueueDeclaration(t, topic));
    await rabbit.queueDeclare(deadQueueDeclaration(t, topic));
    for (const binding of inboxBindings(t, topic)) await rabbit.queueBind(binding);
  } catch (cause) {
    throw new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `amqp: declaring the queues of ${topic} failed: ${(cause as Error).message}`, { cause, details: { topic, queue: inboxQueue(t, topic) } });
  }
}
