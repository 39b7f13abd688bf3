import { randomBytes } from 'node:crypto';
import type { AsyncMessage, Connection, ConsumerProps, Publisher } from 'rabbitmq-client';
import { createDelivery, handOver } from '../../src/delivery.js';
import type { Logger } from '../../src/observability/logger.js';
import type { DeliveryHandler } from '../../src/transport.js';

/** rabbitmq-client's ConsumerStatus values (the enum lives in the package, loaded on demand). */
const ACK = 0;
const REQUEUE = 1;
const DROP = 2;

/** The header that counts deliveries: set on every republish of a nacked message. */
export const ATTEMPT_HEADER = 'x-agentrpc-attempt';
/** The header that keeps a message's delivery id on the copies the subscriber republishes. */
export const DELIVERY_ID_HEADER = 'x-agentrpc-delivery-id';

export interface ConsumeOptions {
  readonly topic: string;
  /** What the consumer declares (and re-declares after every reconnect). */
  readonly props: ConsumerProps;
  readonly maxInflight: number;
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
  /** Messages of a dead-letter queue: handed over flagged exhausted, for the DLQ. */
  readonly exhausted?: boolean;
  /**
   * Deliveries after which a nack dead-letters the message (basic.nack without requeue, which
   * the queue's dead-letter exchange routes to the topic's dead queue). Unset: nacks always
   * redeliver (private queues have no dead-letter exchange).
   */
  readonly maxDeliver?: number;
  /** Republishes a nacked message, confirmed, before the original is acked. */
  readonly publisher: Publisher;
  /** How long the consumer may take to be set up (queue found, consuming) before subscribe fails. */
  readonly setupTimeoutMs: number;
  /**
   * Exchanges whose messages only agent-rpc's subscribers publish: the default exchange
   * (their republishes, by queue name) and the dead-letter exchange. Only on messages that
   * came through one of them is the delivery-id header believed.
   */
  readonly trustedExchanges: ReadonlySet<string>;
}

/**
 * Delivery ids of one consumer. The id names one broker message across its redeliveries
 * (replay protection tells a redelivery from a replay by it, see docs/auth.md), so it must
 * not come from the publisher: the `message-id` property is whatever a publisher sets, and
 * a captured request published again with it would pass as a redelivery. A message gets a
 * fresh id when a consumer first takes it; the subscriber's republishes (nack, a member gone
 * away) carry it in DELIVERY_ID_HEADER, believed only on messages routed through an
 * exchange agent-rpc alone publishes to. A message the broker itself delivers again
 * (`redelivered`, which no publisher can set) to this process after its connection was
 * lost gets back the id this consumer gave it, found by its message-id among the last ones
 * handed out here; in another process it gets a fresh one.
 */
class DeliveryIds {
  private readonly prefix = `amqp:${randomBytes(6).toString('hex')}.`;
  private seq = 0;
  /** message-id property → the id given here, the most recent `capacity` only. */
  private readonly recent = new Map<string, string>();

  constructor(
    private readonly capacity: number,
    private readonly trusted: ReadonlySet<string>,
  ) {}

  of(message: AsyncMessage): string {
    const kept = message.headers?.[DELIVERY_ID_HEADER];
    if (typeof kept === 'string' && kept.length > 0 && this.trusted.has(message.exchange)) return kept;
    const property = message.messageId;
    if (message.redelivered && property !== undefined) {
      const given = this.recent.get(property);
      if (given !== undefined) return given;
    }
    const id = `${this.prefix}${++this.seq}`;
    if (property !== undefined) {
      this.recent.delete(property);
      this.recent.set(property, id);
      if (this.recent.size > this.capacity) this.recent.delete(this.recent.keys().next().value as string);
    }
    return id;
  }
}

/** The attempt header: deliveries counted so far (1 when absent). */
function counted(message: AsyncMessage): number {
  const header = message.headers?.[ATTEMPT_HEADER];
  return typeof header === 'number' && Number.isInteger(header) && header > 0 ? header : 1;
}

/**
 * This delivery's attempt. Classic queues count nothing themselves: a nack republishes the
 * message with the header raised, and so does an inbox queue's redelivery after a consumer
 * or its connection went away (see consumeQueue), so the header is the count. A private
 * queue's redelivery only says `redelivered`: one more. A dead-lettered message keeps its
 * header: its hand-over to the DLQ is one more.
 */
function attemptOf(message: AsyncMessage, options: ConsumeOptions): number {
  if (options.exhausted) return counted(message) + 1;
  return counted(message) + (options.maxDeliver === undefined && message.redelivered ? 1 : 0);
}

/**
 * A delivery that failed (`attempt` is the one that failed): dead-lettered once it was the
 * maxDeliver-th, else republished to its queue with the attempt raised and then acked (the
 * copy first, so nothing is lost; a crash in between leaves a duplicate, which the inbox
 * dedupes). A republish that fails leaves the message to the broker's own requeue.
 */
async function redeliver(message: AsyncMessage, deliveryId: string, attempt: number, options: ConsumeOptions): Promise<number> {
  if (options.exhausted) return REQUEUE;
  if (options.maxDeliver !== undefined && attempt >= options.maxDeliver) return DROP;
  try {
    const { messageId, correlationId, durable, headers } = message;
    const raised = { ...headers, [ATTEMPT_HEADER]: attempt + 1, [DELIVERY_ID_HEADER]: deliveryId };
    await options.publisher.send({ exchange: '', routingKey: options.props.queue, messageId, correlationId, durable, headers: raised }, message.body);
    return ACK;
  } catch (error) {
    options.logger.warn({ err: error, topic: options.topic }, 'amqp: a nacked message could not be republished; the broker requeues it');
    return REQUEUE;
  }
}

/**
 * One rabbitmq-client Consumer on one queue. The handler's promise stays open until the
 * Delivery is settled, so the consumer's concurrency (= maxInflight, and the prefetch) is the
 * in-flight bound; ack is a basic.ack after dispatch, nack a republish with the attempt
 * counted (after the delay, held here: RabbitMQ has no delayed requeue). The client re-declares the queue
 * and resumes consuming after every reconnect; deliveries unacked when a connection drops
 * are redelivered by the broker.
 */
export async function consumeQueue(rabbit: Connection, options: ConsumeOptions): Promise<{ close(): Promise<void> }> {
  const { topic, handler, logger } = options;
  const open = new Set<(status: number) => void>();
  const ids = new DeliveryIds(4 * options.maxInflight, options.trustedExchanges);
  const consumer = rabbit.createConsumer(
    { ...options.props, concurrency: options.maxInflight, qos: { prefetchCount: options.maxInflight }, requeue: true },
    (message) => {
      // An inbox message back from a consumer that went away (crashed, or closed holding it)
      // counts as a failed attempt: republished with the count raised, or dead-lettered at
      // maxDeliver, so a message that keeps killing its consumers ends in the DLQ.
      const deliveryId = ids.of(message);
      if (options.maxDeliver !== undefined && !options.exhausted && message.redelivered) return redeliver(message, deliveryId, counted(message), options);
      return new Promise<number>((resolve) => {
        const finish = (status: number): void => {
          if (open.delete(finish)) resolve(status);
        };
        open.add(finish);
        // Always bytes on the transport's connection (see keepRawBodies).
        const body = message.body as Buffer;
        const attempt = attemptOf(message, options);
        const handOut = (): void => {
          // The consumer closed while the message was held: the broker requeues it.
          if (!open.has(finish)) return;
          const delivery = createDelivery({
            body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
            key: message.correlationId,
            coordinates: { topic, deliveryId },
            attempt,
            exhausted: options.exhausted,
            onAck: () => finish(ACK),
            onNack: (delayMs) => {
              const again = (): void => void redeliver(message, deliveryId, attempt, options).then(finish);
              if (delayMs > 0) setTimeout(again, delayMs).unref();
              else again();
            },
            // Another run holds its claim: kept unacked here and handed over again, the attempt unchanged.
            onDefer: (delayMs) => setTimeout(handOut, delayMs).unref(),
          });
          handOver(handler, delivery);
        };
        handOut();
      });
    },
  );
  consumer.on('error', (error: unknown) => logger.warn({ err: error, topic, queue: options.props.queue }, 'amqp consumer error; the client sets it up again'));
  let ready = false;
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve, reject) => {
    // The client retries a failing setup forever (a broker still recovering its queues answers
    // with an error): subscribe reports it instead of waiting without end.
    timer = setTimeout(() => reject(new Error(`consumer on ${options.props.queue ?? topic} not set up within ${options.setupTimeoutMs} ms`)), options.setupTimeoutMs);
    consumer.once('ready', () => {
      ready = true;
      resolve();
    });
    // The broker refusing the setup (a queue declared with other arguments: PRECONDITION_FAILED)
    // fails the subscribe; a lost connection does not, the client sets it up again.
    consumer.on('error', (error: { code?: string }) => {
      if (!ready && (error?.code === 'PRECONDITION_FAILED' || error?.code === 'ACCESS_REFUSED' || error?.code === 'NOT_FOUND')) reject(error as Error);
    });
  })
    .catch(async (error: unknown) => {
      await consumer.close().catch(() => undefined);
      throw error;
    })
    .finally(() => clearTimeout(timer));
  return {
    close: async () => {
      // What is still unsettled goes back to the queue for another member; the client's close waits for open handlers.
      for (const finish of [...open]) finish(REQUEUE);
      await consumer.close();
    },
  };
}
