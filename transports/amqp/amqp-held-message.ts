import type { AsyncMessage, ConsumerProps, Publisher } from 'rabbitmq-client';
import { handOver } from '../../src/delivery.js';
import type { Logger } from '../../src/logger.js';
import type { Delivery, DeliveryCoordinates, DeliveryHandler } from '../../src/transport.js';
import { DELIVERY_ID_HEADER } from './amqp-delivery-ids.js';

/** rabbitmq-client's ConsumerStatus values (the enum lives in the package, loaded on demand). */
export const ACK = 0;
export const REQUEUE = 1;
export const DROP = 2;

/** The header that counts deliveries: set on every republish of a nacked message. */
export const ATTEMPT_HEADER = 'x-agentrpc-attempt';

/** What a consumer's held messages share: where they go, and how a failed one comes back. */
export interface HoldingConsumer {
  readonly topic: string;
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
  /** What the consumer declares (and re-declares after every reconnect). */
  readonly props: ConsumerProps;
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
}

/** The attempt header: deliveries counted so far (1 when absent). */
export function counted(message: AsyncMessage): number {
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
function attemptOf(message: AsyncMessage, consumer: HoldingConsumer): number {
  if (consumer.exhausted) return counted(message) + 1;
  return counted(message) + (consumer.maxDeliver === undefined && message.redelivered ? 1 : 0);
}

/**
 * A delivery that failed (`attempt` is the one that failed): dead-lettered once it was the
 * maxDeliver-th, else republished to its queue with the attempt raised and then acked (the
 * copy first, so nothing is lost; a crash in between leaves a duplicate, which the inbox
 * dedupes). A republish that fails leaves the message to the broker's own requeue.
 */
export async function redeliver(message: AsyncMessage, deliveryId: string, attempt: number, consumer: HoldingConsumer): Promise<number> {
  if (consumer.exhausted) return REQUEUE;
  if (consumer.maxDeliver !== undefined && attempt >= consumer.maxDeliver) return DROP;
  try {
    const { messageId, correlationId, durable, headers } = message;
    const raised = { ...headers, [ATTEMPT_HEADER]: attempt + 1, [DELIVERY_ID_HEADER]: deliveryId };
    await consumer.publisher.send({ exchange: '', routingKey: consumer.props.queue, messageId, correlationId, durable, headers: raised }, message.body);
    return ACK;
  } catch (error) {
    consumer.logger.warn({ err: error, topic: consumer.topic }, 'amqp: a nacked message could not be republished; the broker requeues it');
    return REQUEUE;
  }
}

/**
 * One broker message from its arrival until its delivery is settled: rabbitmq-client acks,
 * nacks or requeues it when `finish` resolves the handler's promise with a status. A class
 * rather than closures: the per-message path allocates a few objects, not a dozen functions.
 */
export class HeldMessage {
  readonly body: Uint8Array;
  readonly coordinates: DeliveryCoordinates;
  readonly attempt: number;

  constructor(
    readonly message: AsyncMessage,
    readonly deliveryId: string,
    private readonly consumer: HoldingConsumer,
    /** The consumer's unsettled messages: one closed consumer requeues them all. */
    private readonly open: Set<HeldMessage>,
    private readonly resolve: (status: number) => void,
  ) {
    // Always bytes on the transport's connection (see keepRawBodies).
    const body = message.body as Buffer;
    this.body = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    this.coordinates = { topic: consumer.topic, deliveryId };
    this.attempt = attemptOf(message, consumer);
    open.add(this);
  }

  /** Settles the broker message once (later calls do nothing). */
  finish(status: number): void {
    if (this.open.delete(this)) this.resolve(status);
  }

  handOut(): void {
    // The consumer closed while the message was held: the broker requeues it.
    if (!this.open.has(this)) return;
    handOver(this.consumer.handler, new AmqpDelivery(this, this.consumer.exhausted));
  }

  /** Failed: republished with the attempt raised (or dead-lettered), after `delayMs`, held here: RabbitMQ has no delayed requeue. */
  retry(delayMs: number): void {
    const again = (): void => void redeliver(this.message, this.deliveryId, this.attempt, this.consumer).then((status) => this.finish(status));
    if (delayMs > 0) setTimeout(again, delayMs).unref();
    else again();
  }

  /** Another run holds its claim: kept unacked here and handed over again, the attempt unchanged. */
  defer(delayMs: number): void {
    setTimeout(() => this.handOut(), delayMs).unref();
  }
}

/** One hand-over of a held message: the first ack, nack or defer settles it, later ones do nothing. */
class AmqpDelivery implements Delivery {
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly coordinates: DeliveryCoordinates;
  readonly attempt: number;
  private settled = false;

  constructor(
    private readonly held: HeldMessage,
    readonly exhausted: boolean | undefined,
  ) {
    this.body = held.body;
    this.key = held.message.correlationId;
    this.coordinates = held.coordinates;
    this.attempt = held.attempt;
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }

  ack(): void {
    if (this.settle()) this.held.finish(ACK);
  }

  nack(options?: { delayMs?: number }): void {
    if (this.settle()) this.held.retry(options?.delayMs ?? 0);
  }

  defer(delayMs: number): void {
    if (this.settle()) this.held.defer(delayMs);
  }
}
