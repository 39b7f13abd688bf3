import type { Connection, ConsumerProps, Publisher } from 'rabbitmq-client';
import type { Logger } from '../../src/logger.js';
import type { DeliveryHandler } from '../../src/transport.js';
import { DeliveryIds } from './amqp-delivery-ids.js';
import { counted, HeldMessage, redeliver, REQUEUE } from './amqp-held-message.js';

export { ATTEMPT_HEADER } from './amqp-held-message.js';
export { DELIVERY_ID_HEADER } from './amqp-delivery-ids.js';

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
 * One rabbitmq-client Consumer on one queue. The handler's promise stays open until the
 * Delivery is settled, so the consumer's concurrency (= maxInflight, and the prefetch) is the
 * in-flight bound; ack is a basic.ack after dispatch, nack a republish with the attempt
 * counted (after the delay, held here: RabbitMQ has no delayed requeue). The client re-declares the queue
 * and resumes consuming after every reconnect; deliveries unacked when a connection drops
 * are redelivered by the broker.
 */
export async function consumeQueue(rabbit: Connection, options: ConsumeOptions): Promise<{ close(): Promise<void> }> {
  const { topic, logger } = options;
  const open = new Set<HeldMessage>();
  const ids = new DeliveryIds(4 * options.maxInflight, options.trustedExchanges);
  const consumer = rabbit.createConsumer({ ...options.props, concurrency: options.maxInflight, qos: { prefetchCount: options.maxInflight }, requeue: true }, (message) => {
    // An inbox message back from a consumer that went away (crashed, or closed holding it)
    // counts as a failed attempt: republished with the count raised, or dead-lettered at
    // maxDeliver, so a message that keeps killing its consumers ends in the DLQ.
    const deliveryId = ids.of(message);
    if (options.maxDeliver !== undefined && !options.exhausted && message.redelivered) return redeliver(message, deliveryId, counted(message), options);
    // The promise stays open until the delivery is settled: that is the in-flight bound.
    return new Promise<number>((resolve) => new HeldMessage(message, deliveryId, options, open, resolve).handOut());
  });
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
      for (const held of [...open]) held.finish(REQUEUE);
      await consumer.close();
    },
  };
}
