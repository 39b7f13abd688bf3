import type { JetStreamClient, JetStreamManager, JsMsg, NatsConnection, NatsError } from 'nats';
import { RpcError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { RpcMetrics } from '../../src/observability/index.js';
import type { DurableOptions } from './nats-options.js';
import type { NatsModule } from './nats-options.js';
import type { DeliveryQueue } from '../shared/delivery-queue.js';

/** JetStream's own error codes (err_code) this transport acts on. */
const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;

const jetStreamCode = (error: unknown): number | undefined => (error as Partial<NatsError> | undefined)?.api_error?.err_code;

/** JetStream names allow neither dots nor wildcards. */
export function jetStreamName(subject: string): string {
  return `AGENTRPC_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function setupFailed(subject: string, stream: string, step: string, cause: unknown): RpcError {
  return new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `nats: ${step} of stream ${stream} for ${subject} failed: ${(cause as Error)?.message ?? String(cause)}`, {
    cause,
    details: { subject, stream },
  });
}

/**
 * Creates (or updates) the stream capturing `subject`. Every publish on the subject —
 * core or JetStream — is stored from then on. Only "it exists already" (another agent
 * created it first) is expected; every other failure is EAGENTRPC_BROKER_SETUP_FAILED.
 */
export async function ensureStream(jsm: JetStreamManager, nats: NatsModule, subject: string, durable: Required<DurableOptions>): Promise<string> {
  const name = jetStreamName(subject);
  const config = {
    name,
    subjects: [subject],
    storage: durable.storage === 'memory' ? nats.StorageType.Memory : nats.StorageType.File,
    max_age: nats.nanos(durable.maxAgeMs),
    duplicate_window: nats.nanos(Math.min(durable.maxAgeMs, 2 * 60 * 1000)),
  };
  let exists = true;
  await jsm.streams.info(name).catch((error: unknown) => {
    if (jetStreamCode(error) !== STREAM_NOT_FOUND) throw setupFailed(subject, name, 'lookup', error);
    exists = false;
  });
  if (!exists) {
    try {
      await jsm.streams.add(config);
      return name;
    } catch (error) {
      // Created by another agent between our lookup and add: bring its settings up to ours.
      if (jetStreamCode(error) !== STREAM_NAME_IN_USE) throw setupFailed(subject, name, 'creation', error);
    }
  }
  await jsm.streams.update(name, config).catch((error: unknown) => {
    throw setupFailed(subject, name, 'update', error);
  });
  return name;
}

/** What the durable path needs of the connection. */
export interface JetStreamContext {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly nats: NatsModule;
  readonly logger: Logger;
  readonly metrics: RpcMetrics;
}

/**
 * A durable consumer shared by a group: each message goes to one member, is acked after
 * dispatch, redelivered after `ackWaitMs` or a nak, at most `maxDeliver` times. The server
 * keeps at most `maxInflight` messages unacked (max_ack_pending), which is the back-pressure.
 * A deferred message stays with its member, kept from redelivery by in-progress acks
 * (`working`), so the wait counts no delivery.
 */
export async function consumeDurably(
  context: JetStreamContext,
  stream: string,
  group: string,
  durable: Required<DurableOptions>,
  maxInflight: number,
  topic: string,
  queue: DeliveryQueue,
): Promise<{ close(): Promise<void> }> {
  const { js, jsm, nats } = context;
  const name = jetStreamName(group);
  await jsm.consumers.add(stream, {
    durable_name: name,
    ack_policy: nats.AckPolicy.Explicit,
    ack_wait: nats.nanos(durable.ackWaitMs),
    max_deliver: durable.maxDeliver,
    max_ack_pending: maxInflight,
    deliver_policy: nats.DeliverPolicy.All,
  });
  const consumer = await js.consumers.get(stream, name);
  const advisories = handOverExhausted(context, stream, name, topic, queue);
  const messages = await consumer.consume({
    max_messages: Math.min(maxInflight, 256),
    callback: (msg: JsMsg) =>
      queue.push({
        topic,
        body: msg.data,
        key: undefined,
        deliveryId: `${stream}:${msg.info.streamSequence}`,
        attempt: msg.info.deliveryCount,
        settleRemote: { ack: () => msg.ack(), nak: (delayMs) => msg.nak(delayMs > 0 ? delayMs : undefined), working: () => msg.working() },
      }),
  });
  return {
    close: async () => {
      advisories.unsubscribe();
      await messages.close();
    },
  };
}

/**
 * JetStream stops delivering a message after max_deliver and only announces it with an
 * advisory. The message is still in the stream: fetch it and hand it to the handler once
 * more, flagged `exhausted`, so the inbox dead-letters it instead of it silently stalling.
 * One member of the group takes each advisory (a queue subscription). A message that
 * cannot be fetched (removed by age, or the server unreachable) is logged and counted.
 */
function handOverExhausted({ nc, jsm, logger, metrics }: JetStreamContext, stream: string, consumer: string, topic: string, queue: DeliveryQueue) {
  return nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`, {
    queue: consumer,
    callback: (_error, advisory) => {
      const { stream_seq: seq, deliveries } = advisory.json<{ stream_seq: number; deliveries: number }>();
      jsm.streams.getMessage(stream, { seq }).then(
        (stored) =>
          queue.push({
            topic,
            body: stored.data,
            key: undefined,
            deliveryId: `${stream}:${seq}`,
            attempt: deliveries + 1,
            exhausted: true,
            settleRemote: {
              ack: () =>
                void jsm.streams.deleteMessage(stream, seq).catch((error: unknown) => logger.warn({ err: error, topic, stream, seq }, 'nats: a dead-lettered message could not be removed from its stream')),
              nak: () => undefined,
            },
          }),
        (error: unknown) => {
          metrics.transportDropped?.('nats', 'exhausted-fetch-failed');
          logger.error({ err: error, topic, stream, seq, deliveries }, 'nats: a message past max_deliver could not be fetched for the DLQ; it is lost to the inbox');
        },
      );
    },
  });
}
