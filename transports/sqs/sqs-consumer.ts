import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { backoffDelay, type BackoffPolicy } from '../../src/backoff.js';
import { createDelivery, handOver } from '../../src/delivery.js';
import type { Logger } from '../../src/logger.js';
import type { DeliveryHandler } from '../../src/transport.js';
import { decodeBody, ENCODING_ATTRIBUTE } from './sqs-body.js';
import { isMissingQueue } from './sqs-queues.js';
import type { ResolvedSqsOptions, SqsModule } from './sqs-options.js';

const RETRY: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };
export const KEY_ATTRIBUTE = 'agentrpc-key';

export interface SqsConsumerInit {
  readonly client: SQSClient;
  readonly sqs: SqsModule;
  readonly options: ResolvedSqsOptions;
  readonly logger: Logger;
  readonly topic: string;
  /** The queue URL; asked again after the queue went missing (recreated by a restart). */
  readonly queueUrl: () => Promise<string>;
  readonly onMissingQueue: () => void;
  readonly handler: DeliveryHandler;
  readonly maxInflight: number;
  /** Messages of a DLQ queue: handed over once more, flagged exhausted. */
  readonly exhausted?: boolean;
}

/**
 * One long-polling loop over a queue. It asks for at most as many messages as it has free
 * in-flight slots (≤ 10, the SQS limit), so unsettled deliveries hold back the next receive.
 * ack deletes the message; nack makes it visible again after the delay (whole seconds,
 * rounded up), and SQS's ApproximateReceiveCount is the attempt.
 */
export class SqsConsumer {
  private readonly abort = new AbortController();
  private inflight = 0;
  private wake: (() => void) | undefined;
  private readonly done: Promise<void>;

  constructor(private readonly init: SqsConsumerInit) {
    this.done = this.loop();
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.done;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async loop(): Promise<void> {
    const { client, sqs, options, logger, topic } = this.init;
    let failures = 0;
    while (!this.stopped) {
      if (this.inflight >= this.init.maxInflight) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      try {
        const QueueUrl = await this.init.queueUrl();
        const { Messages = [] } = await client.send(
          new sqs.ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: Math.min(10, this.init.maxInflight - this.inflight),
            WaitTimeSeconds: options.waitTimeSeconds,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
            MessageAttributeNames: ['All'],
          }),
          // A poll the server never answers (its queue deleted under it) is given up after
          // the wait plus a margin, so the loop goes on and finds the queue again.
          { abortSignal: AbortSignal.any([this.abort.signal, AbortSignal.timeout((options.waitTimeSeconds + 10) * 1000)]) },
        );
        if (failures > 0) options.metrics.transportReconnected?.('sqs');
        failures = 0;
        for (const message of Messages) this.deliver(QueueUrl, message);
      } catch (error) {
        if (this.stopped) return;
        if (isMissingQueue(error)) this.init.onMissingQueue();
        failures++;
        if (failures === 1 || logger.isLevelEnabled('debug')) logger.warn({ err: error, topic }, 'sqs: receive failed; retrying');
        await this.pause(backoffDelay(RETRY, failures));
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }

  private deliver(queueUrl: string, message: Message): void {
    const { client, sqs, logger, topic, options } = this.init;
    const receipt = message.ReceiptHandle as string;
    const attributes = message.MessageAttributes ?? {};
    const received = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
    this.inflight++;
    const delivery = createDelivery({
      body: decodeBody(message.Body ?? '', attributes[ENCODING_ATTRIBUTE]?.StringValue === 'base64'),
      key: attributes[KEY_ATTRIBUTE]?.StringValue,
      coordinates: { topic, deliveryId: message.MessageId ?? receipt },
      // A message on the DLQ queue went through maxReceiveCount receives already.
      attempt: this.init.exhausted ? Math.max(received, options.maxReceiveCount + 1) : received,
      exhausted: this.init.exhausted,
      onSettle: () => {
        this.inflight--;
        this.wake?.();
      },
      onAck: () => {
        client.send(new sqs.DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receipt })).catch((error: unknown) => {
          options.metrics.transportCommitFailed?.('sqs');
          logger.warn({ err: error, topic, messageId: message.MessageId }, 'sqs: delete after dispatch failed; the message comes back after its visibility timeout');
        });
      },
      onNack: (delayMs) => this.hideFor(queueUrl, message, Math.ceil(delayMs / 1000), 'nack'),
      // Another run holds its claim: kept here, hidden at the server meanwhile (a receive
      // would count as an attempt), and handed over again with the same attempt.
      onDefer: (delayMs) => {
        this.hideFor(queueUrl, message, Math.ceil(delayMs / 1000) + options.visibilityTimeoutSeconds, 'defer');
        setTimeout(() => (this.stopped ? undefined : this.deliver(queueUrl, message)), delayMs).unref();
      },
    });
    handOver(this.init.handler, delivery);
  }

  /** Makes the message visible again after `seconds` (at most SQS's 12 hours). */
  private hideFor(queueUrl: string, message: Message, seconds: number, why: 'nack' | 'defer'): void {
    const { client, sqs, logger, topic } = this.init;
    const VisibilityTimeout = Math.min(43_200, seconds);
    client.send(new sqs.ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle as string, VisibilityTimeout })).catch((error: unknown) => {
      logger.warn({ err: error, topic, messageId: message.MessageId }, `sqs: ${why} failed; the message comes back after its visibility timeout`);
    });
  }
}
