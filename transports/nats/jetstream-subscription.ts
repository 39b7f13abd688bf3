import type { JetStreamClient, JetStreamManager, JsMsg, NatsConnection } from 'nats';
import type { DurableOptions } from './nats-options.js';
import type { NatsModule } from './nats-options.js';
import type { DeliveryQueue } from '../shared/delivery-queue.js';

/** JetStream names allow neither dots nor wildcards. */
export function jetStreamName(subject: string): string {
  return `AGENTRPC_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * Creates (or updates) the stream capturing `subject`. Every publish on the subject —
 * core or JetStream — is stored from then on.
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
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, config);
  } catch {
    await jsm.streams.add(config);
  }
  return name;
}

/**
 * A durable consumer shared by a group: each message goes to one member, is acked after
 * dispatch, redelivered after `ackWaitMs` or a nak, at most `maxDeliver` times. The server
 * keeps at most `maxInflight` messages unacked (max_ack_pending), which is the back-pressure.
 */
/** What the durable path needs of the connection. */
export interface JetStreamContext {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly nats: NatsModule;
}

export async function consumeDurably(
  { nc, js, jsm, nats }: JetStreamContext,
  stream: string,
  group: string,
  durable: Required<DurableOptions>,
  maxInflight: number,
  topic: string,
  queue: DeliveryQueue,
): Promise<{ close(): Promise<void> }> {
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
  const advisories = handOverExhausted(nc, jsm, stream, name, topic, queue);
  const messages = await consumer.consume({
    max_messages: Math.min(maxInflight, 256),
    callback: (msg: JsMsg) =>
      queue.push({
        topic,
        body: msg.data,
        key: undefined,
        deliveryId: `${stream}:${msg.info.streamSequence}`,
        attempt: msg.info.deliveryCount,
        settleRemote: { ack: () => msg.ack(), nak: (delayMs) => msg.nak(delayMs > 0 ? delayMs : undefined) },
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
 * One member of the group takes each advisory (a queue subscription).
 */
function handOverExhausted(nc: NatsConnection, jsm: JetStreamManager, stream: string, consumer: string, topic: string, queue: DeliveryQueue) {
  return nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`, {
    queue: consumer,
    callback: (_error, advisory) => {
      const { stream_seq: seq, deliveries } = advisory.json<{ stream_seq: number; deliveries: number }>();
      void jsm.streams.getMessage(stream, { seq }).then(
        (stored) =>
          queue.push({
            topic,
            body: stored.data,
            key: undefined,
            deliveryId: `${stream}:${seq}`,
            attempt: deliveries + 1,
            exhausted: true,
            settleRemote: { ack: () => void jsm.streams.deleteMessage(stream, seq).catch(() => undefined), nak: () => undefined },
          }),
        () => undefined,
      );
    },
  });
}
