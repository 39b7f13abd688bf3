import type { JetStreamClient, JetStreamManager, MsgHdrs, NatsConnection, Subscription as NatsSubscription } from 'nats';
import { RpcError } from '../../src/errors.js';
import { connectOnce } from '../shared/connect-once.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { consumeDurably, ensureStream, jetStreamName } from './jetstream-subscription.js';
import { DeliveryQueue } from '../shared/delivery-queue.js';
import { loadNats, resolveNatsOptions, type DurableOptions, type NatsModule, type NatsTransportOptions, type ResolvedNatsOptions } from './nats-options.js';

const CORE_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true };
const DURABLE_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true };

/**
 * NATS transport. Subjects are topic names (plus `subjectPrefix`). Core NATS by default:
 * lowest latency, at-most-once across process crashes, nacks redelivered locally. With
 * `durable`, shared subscriptions are JetStream durable consumers (at-least-once).
 */
class NatsTransport implements RpcTransport {
  readonly kind = 'nats' as const;
  readonly traits: TransportTraits;
  private readonly options: ResolvedNatsOptions;
  private readonly logger: Logger;
  private nats: NatsModule | undefined;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private closed = false;
  private readonly closers = new Set<() => Promise<void>>();
  /** Per subject: does a stream capture it? Then publishes go through JetStream (ack, dedupe). */
  private readonly streamSubjects = new Map<string, Promise<boolean>>();
  private deliverySeq = 0;

  constructor(private readonly input: NatsTransportOptions) {
    this.options = resolveNatsOptions(input);
    this.traits = this.options.durable ? DURABLE_TRAITS : CORE_TRAITS;
    this.logger = input.logger ?? silentLogger;
  }

  private readonly connectOnce = connectOnce(() => this.open());

  connect(): Promise<void> {
    return this.closed ? Promise.reject(closedError()) : this.connectOnce();
  }

  private async open(): Promise<void> {
    const nats = await loadNats(this.input.loadModule);
    this.nats = nats;
    this.nc = await this.firstConnection(nats);
    void this.watchStatus(this.nc);
    if (this.options.durable) {
      this.js = this.nc.jetstream();
      this.jsm = await this.nc.jetstreamManager();
    }
  }

  /**
   * The first connection is tried (each server in turn) until connectTimeoutMs, then fails
   * with the last error, so a refused certificate or a wrong address is a clear error at
   * start instead of a wait forever. After that the client reconnects forever, with jitter.
   */
  private async firstConnection(nats: NatsModule): Promise<NatsConnection> {
    const deadline = Date.now() + this.options.connectTimeoutMs;
    for (;;) {
      try {
        return await nats.connect({
          timeout: Math.max(1, Math.min(5_000, deadline - Date.now())),
          ...this.options.connection,
          servers: this.options.servers,
          // The client default gives up reconnecting after 10 attempts.
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          reconnectJitter: 250,
          waitOnFirstConnect: false,
          noAsyncTraces: true,
        });
      } catch (error) {
        if (this.closed || Date.now() + 250 >= deadline) {
          const cause = error instanceof Error ? error.message : String(error);
          throw new RpcError('EAGENTRPC_CONNECT_FAILED', `could not connect to NATS (${this.options.servers.join(', ')}) within ${this.options.connectTimeoutMs} ms: ${cause}`, {
            cause: error,
            details: { servers: this.options.servers },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (this.logger.isLevelEnabled('info')) this.logger.info({ transport: 'nats', status: status.type, data: String(status.data) }, 'nats connection status');
    }
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    const nc = this.nc;
    if (this.closed || !nc || nc.isClosed()) throw closedError();
    const subject = this.options.subjectPrefix + topic;
    try {
      if (this.js && (await this.capturedByStream(topic, subject))) {
        await this.js.publish(subject, message.body, message.messageId ? { msgID: message.messageId } : undefined);
        return;
      }
      // While reconnecting, nats.js buffers the publish and sends it once connected.
      nc.publish(subject, message.body, message.messageId && this.js ? { headers: this.msgIdHeader(message.messageId) } : undefined);
    } catch (cause) {
      if (this.closed || nc.isClosed() || nc.isDraining()) throw closedError();
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `nats publish to ${subject} failed: ${(cause as Error).message}`, { cause });
    }
  }

  /**
   * Durable topics get their stream before the first publish, so what is sent before the
   * first consumer subscribes is kept. Other subjects use a stream only if one exists.
   */
  private capturedByStream(topic: string, subject: string): Promise<boolean> {
    let known = this.streamSubjects.get(subject);
    if (!known) {
      const durable = this.options.durable as Required<DurableOptions>;
      const jsm = this.jsm as JetStreamManager;
      known = durable.topics(topic)
        ? ensureStream(jsm, this.nats as NatsModule, subject, durable).then(() => true)
        : jsm.streams.find(subject).then(() => true, () => false);
      known.catch(() => this.streamSubjects.delete(subject));
      this.streamSubjects.set(subject, known);
    }
    return known;
  }

  /** Lets a stream that captures a core publish dedupe it too. */
  private msgIdHeader(messageId: string): MsgHdrs {
    const headers = (this.nats as NatsModule).headers();
    headers.set('Nats-Msg-Id', messageId);
    return headers;
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    const nc = this.nc as NatsConnection;
    const subject = this.options.subjectPrefix + topic;
    const maxInflight = options.maxInflight ?? this.options.maxInflight;
    const queue = new DeliveryQueue({
      handler,
      maxInflight,
      // After the client's callback, not inside it; I/O keeps the loop turning.
      schedule: queueMicrotask,
      maxPending: this.options.maxPending,
      onOverflow: (dropped) => {
        this.logger.warn({ topic, deliveryId: dropped.deliveryId, maxPending: this.options.maxPending }, 'nats slow consumer: message dropped');
      },
    });
    let stop: () => Promise<void>;
    if (this.options.durable && options.group !== undefined && this.options.durable.topics(topic)) {
      const durable = this.options.durable;
      const stream = await ensureStream(this.jsm as JetStreamManager, this.nats as NatsModule, subject, durable);
      this.streamSubjects.set(subject, Promise.resolve(true));
      const context = { nc, js: this.js as JetStreamClient, jsm: this.jsm as JetStreamManager, nats: this.nats as NatsModule };
      const messages = await consumeDurably(
        context,
        stream, `${options.group}.${topic}`, durable, maxInflight, topic, queue,
      );
      stop = async () => {
        // Hand back what was received but not yet handed out: another member (or this
        // agent after a restart) gets it at once instead of after ack_wait.
        for (const waiting of queue.close()) waiting.settleRemote?.nak(0);
        await messages.close();
      };
    } else {
      const sub: NatsSubscription = nc.subscribe(subject, {
        queue: options.group,
        callback: (error, msg) => {
          if (error) return this.logger.error({ err: error, topic }, 'nats subscription error');
          queue.push({ topic, body: msg.data, key: undefined, deliveryId: `${subject}#${++this.deliverySeq}`, attempt: 1 });
        },
      });
      // Resolves once the server has registered the interest: later publishes reach us.
      await nc.flush();
      stop = async () => {
        queue.close();
        if (!sub.isClosed()) sub.unsubscribe();
      };
    }
    const closeOnce = async (): Promise<void> => {
      if (!this.closers.delete(closeOnce)) return;
      await stop();
    };
    this.closers.add(closeOnce);
    return { topic, close: closeOnce };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const close of [...this.closers]) await close().catch(() => undefined);
    const nc = this.nc;
    if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }

  /** Exposed for tests and tools: the stream a durable subscription on `topic` uses. */
  streamNameFor(topic: string): string {
    return jetStreamName(this.options.subjectPrefix + topic);
  }
}

function closedError(): RpcError {
  return new RpcError('EAGENTRPC_TRANSPORT_CLOSED', 'nats transport is closed');
}

export function natsTransport(options: NatsTransportOptions): RpcTransport {
  return new NatsTransport(options);
}
