import { randomUUID } from 'node:crypto';
import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { sqsEndpoint } from '../shared/broker-endpoint.js';
import { closedError, TransportBase } from '../shared/transport-base.js';
import { encodeBody, ENCODING_ATTRIBUTE } from './sqs-body.js';
import { KEY_ATTRIBUTE, SqsConsumer } from './sqs-consumer.js';
import { loadSqs, resolveSqsOptions, type ResolvedSqsOptions, type SqsModule, type SqsTransportOptions } from './sqs-options.js';
import { isMissingQueue, SqsQueues } from './sqs-queues.js';

/**
 * A queue is consumed, never broadcast: fan-out needs SNS topics in front of the queues
 * (SNS-to-SQS), which this transport does not fake. FIFO queues keep order per key.
 */
const STANDARD_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true, fanOut: false };
const FIFO_TRAITS: TransportTraits = { ...STANDARD_TRAITS, orderedByKey: true };

const SOCKETS = 256;

interface Connection {
  readonly client: SQSClient;
  readonly sqs: SqsModule;
  readonly queues: SqsQueues;
}

/**
 * SQS: one queue per topic (an agent's inbox, shared by its replicas; a node instance's
 * reply queue, created at subscribe and deleted at close), long polling, delete after
 * dispatch, visibility timeout as nack, a redrive policy to `<queue>-dlq` whose messages
 * are handed over once more as exhausted so the inbox dead-letters them.
 */
class SqsTransport extends TransportBase {
  readonly kind = 'sqs';
  readonly traits: TransportTraits;
  private readonly options: ResolvedSqsOptions;
  private connection: Connection | undefined;

  constructor(private readonly input: SqsTransportOptions) {
    const options = resolveSqsOptions(input);
    super(input.logger);
    this.options = options;
    this.traits = options.fifo ? FIFO_TRAITS : STANDARD_TRAITS;
  }

  protected async open(): Promise<void> {
    const sqs = await loadSqs(this.input.loadModule);
    const { endpoint, region, credentials } = this.options;
    // Every subscription holds one socket in a long poll and every send or delete takes one:
    // the SDK's default of 50 sockets queues requests (and warns) under load.
    const agent = { keepAlive: true, maxSockets: SOCKETS };
    const client = new sqs.SQSClient({
      region,
      requestHandler: { httpAgent: agent, httpsAgent: agent },
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(credentials === undefined ? {} : { credentials }),
    });
    try {
      await client.send(new sqs.ListQueuesCommand({ MaxResults: 1 }));
    } catch (error) {
      client.destroy();
      const where = endpoint ?? `AWS ${region}`;
      throw new RpcError('EAGENTRPC_CONNECT_FAILED', `could not reach SQS at ${where}: ${(error as Error).message}`, { cause: error, details: { endpoint: where } });
    }
    this.connectedTo(sqsEndpoint(endpoint, region));
    this.connection = { client, sqs, queues: new SqsQueues(client, sqs, this.options) };
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    const connection = this.connection;
    if (this.closed || connection === undefined) throw closedError(this.kind);
    const { client, sqs, queues } = connection;
    const { text, base64 } = encodeBody(message.body);
    const attributes: Record<string, MessageAttributeValue> = {};
    if (base64) attributes[ENCODING_ATTRIBUTE] = { DataType: 'String', StringValue: 'base64' };
    if (message.key !== undefined && message.key !== '') attributes[KEY_ATTRIBUTE] = { DataType: 'String', StringValue: message.key };
    // FIFO holds back a group while any of its messages is in flight: an unkeyed message
    // (nothing to order it with) gets a group of its own so it never waits behind another.
    const fifo = this.options.fifo
      ? { MessageGroupId: (message.key || message.messageId || randomUUID()).slice(0, 128), ...(message.messageId === undefined ? {} : { MessageDeduplicationId: message.messageId.slice(0, 128) }) }
      : {};
    const send = async (): Promise<void> => {
      const QueueUrl = await queues.url(topic, message.ephemeral ? 'existing' : 'durable');
      await client.send(new sqs.SendMessageCommand({ QueueUrl, MessageBody: text, MessageAttributes: attributes, ...fifo }));
    };
    try {
      await send().catch((error: unknown) => {
        if (!isMissingQueue(error)) throw error;
        // Deleted, or lost by a server restart since we looked it up: look (or create) again once.
        queues.forget(topic);
        return send();
      });
    } catch (cause) {
      if (this.closed) throw closedError(this.kind);
      if (cause instanceof RpcError) throw cause;
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `sqs send to ${queues.nameOf(topic)} failed: ${(cause as Error).message}`, { cause, details: { topic } });
    }
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    const { client, sqs, queues } = this.connection as Connection;
    const maxInflight = positiveInteger(options.maxInflight ?? this.options.maxInflight, 'subscribe: maxInflight');
    const ephemeral = options.ephemeral === true;
    const mode = ephemeral ? 'ephemeral' : 'durable';
    const queueUrl = await queues.url(topic, mode);
    const base = { client, sqs, options: this.options, logger: this.logger, topic, handler, maxInflight };
    const consumers = [new SqsConsumer({ ...base, queueUrl: () => queues.url(topic, mode), onMissingQueue: () => queues.forget(topic) })];
    if (!ephemeral) {
      consumers.push(new SqsConsumer({ ...base, exhausted: true, queueUrl: () => queues.dlqUrl(topic), onMissingQueue: () => queues.forgetDlq(topic) }));
    }
    return this.track(topic, async () => {
      await Promise.all(consumers.map((consumer) => consumer.close()));
      if (!ephemeral) return;
      // A reply queue lives as long as its subscriber.
      queues.forget(topic);
      await client.send(new sqs.DeleteQueueCommand({ QueueUrl: queueUrl })).catch((error: unknown) => {
        this.logger.warn({ err: error, topic }, 'sqs: reply queue could not be deleted; see docs/transports/sqs.md on orphan cleanup');
      });
    });
  }

  protected shutdown(): Promise<void> {
    this.connection?.client.destroy();
    return Promise.resolve();
  }
}

export function sqsTransport(options: SqsTransportOptions): RpcTransport {
  return new SqsTransport(options);
}
