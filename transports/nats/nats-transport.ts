import { randomBytes } from 'node:crypto';
import type { MsgHdrs, NatsConnection, Subscription as NatsSubscription } from 'nats';
import { backoffDelay, type BackoffPolicy } from '../../src/backoff.js';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { ConnectionState, DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { DeliveryQueue } from '../shared/delivery-queue.js';
import { natsEndpoint } from '../shared/broker-endpoint.js';
import { closedError, TransportBase } from '../shared/transport-base.js';
import { consumeDurably, ensureStream, jetStreamName, type JetStreamContext } from './jetstream-subscription.js';
import { loadNats, resolveNatsOptions, type DurableOptions, type NatsModule, type NatsTransportOptions, type ResolvedNatsOptions } from './nats-options.js';

const CORE_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true };
const DURABLE_TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true };

/** Between attempts of the first connection, and between reconnect rounds once connected. */
const CONNECT_RETRY: BackoffPolicy = { initialMs: 250, maxMs: 2_000 };
const RECONNECT: BackoffPolicy = { initialMs: 250, maxMs: 2_000 };

/**
 * NATS transport. Subjects are topic names (plus `subjectPrefix`). Core NATS by default:
 * lowest latency, at-most-once across process crashes, nacks redelivered locally. With
 * `durable`, shared subscriptions are JetStream durable consumers (at-least-once).
 */
class NatsTransport extends TransportBase {
  readonly kind = 'nats';
  readonly traits: TransportTraits;
  private readonly options: ResolvedNatsOptions;
  private nats: NatsModule | undefined;
  private nc: NatsConnection | undefined;
  private jetStream: JetStreamContext | undefined;
  /** Per subject: does a stream capture it? Then publishes go through JetStream (ack, dedupe). */
  private readonly streamSubjects = new Map<string, Promise<boolean>>();
  private deliverySeq = 0;
  /**
   * Core NATS has no message identity of its own: a delivery is `<subject>#<tag>.<seq>`,
   * the tag random per transport so that two processes never hand out the same id (replay
   * memory shared by replicas compares them to tell a redelivery from a replay).
   */
  private readonly deliveryTag = randomBytes(6).toString('hex');
  /** Dial attempts since the connection was lost: the reconnect backoff's attempt number. */
  private reconnectAttempts = 0;
  /** Disconnects and reconnects so far, so a late round trip does not report a state already superseded. */
  private connectionChanges = 0;
  private readonly stateListeners: Array<(state: ConnectionState) => void> = [];

  constructor(private readonly input: NatsTransportOptions) {
    const options = resolveNatsOptions(input);
    super(input.logger);
    this.options = options;
    this.traits = options.durable ? DURABLE_TRAITS : CORE_TRAITS;
  }

  protected async open(): Promise<void> {
    const nats = await loadNats(this.input.loadModule);
    this.nats = nats;
    const nc = await this.firstConnection(nats);
    this.nc = nc;
    this.connectedTo(natsEndpoint(nc.getServer(), this.options.servers[0]!));
    void this.watchStatus(nc);
    if (this.options.durable) {
      const { logger, options } = this;
      this.jetStream = { nc, js: nc.jetstream(), jsm: await nc.jetstreamManager(), nats, logger, metrics: options.metrics };
    }
  }

  /**
   * The first connection is tried (each server in turn) until connectTimeoutMs, then fails
   * with the last error, so a refused certificate or a wrong address is a clear error at
   * start instead of a wait forever. After that the client reconnects forever, with backoff.
   */
  private async firstConnection(nats: NatsModule): Promise<NatsConnection> {
    const deadline = Date.now() + this.options.connectTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await nats.connect({
          timeout: Math.max(1, Math.min(5_000, deadline - Date.now())),
          ...this.options.connection,
          servers: this.options.servers,
          // The client default gives up reconnecting after 10 attempts.
          maxReconnectAttempts: -1,
          reconnectDelayHandler: () => backoffDelay(RECONNECT, Math.max(1, this.reconnectAttempts)),
          waitOnFirstConnect: false,
          noAsyncTraces: true,
        });
      } catch (error) {
        const wait = Math.min(backoffDelay(CONNECT_RETRY, attempt), deadline - Date.now());
        if (this.closed || wait <= 0) {
          const cause = error instanceof Error ? error.message : String(error);
          throw new RpcError('EAGENTRPC_CONNECT_FAILED', `could not connect to NATS (${this.options.servers.join(', ')}) within ${this.options.connectTimeoutMs} ms: ${cause}`, {
            cause: error,
            details: { servers: this.options.servers },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'reconnecting') this.reconnectAttempts++;
      if (status.type === 'disconnect' || status.type === 'reconnect') this.connectionChanges++;
      // `disconnect`: the client lost the server and starts reconnecting; `reconnect`: it is back.
      if (status.type === 'disconnect') this.reportState('lost');
      if (status.type === 'reconnect') {
        this.reconnectAttempts = 0;
        this.connectedTo(natsEndpoint(nc.getServer(), this.options.servers[0]!));
        void this.backWhenSubscribed(nc, this.connectionChanges);
      }
      if (this.logger.isLevelEnabled('info')) this.logger.info({ status: status.type, data: String(status.data) }, 'nats connection status');
    }
  }

  /**
   * nats.js reports a reconnect once it has written its subscriptions again, before the
   * server has them: a reply published to this instance in between finds no subscriber and
   * is lost (core NATS). The connection counts as back after a round trip (`flush`), which
   * the server answers only once it has processed them — unless its state changed meanwhile.
   */
  private async backWhenSubscribed(nc: NatsConnection, change: number): Promise<void> {
    try {
      await nc.flush();
    } catch {
      return; // Lost again: the next `reconnect` reports it back.
    }
    if (change !== this.connectionChanges) return;
    this.options.metrics.transportReconnected?.('nats');
    this.reportState('connected');
  }

  onConnectionState(listener: (state: ConnectionState) => void): void {
    this.stateListeners.push(listener);
  }

  private reportState(state: ConnectionState): void {
    if (this.closed) return;
    for (const listener of this.stateListeners) listener(state);
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    const nc = this.nc;
    if (this.closed || !nc || nc.isClosed()) throw closedError(this.kind);
    const subject = this.options.subjectPrefix + topic;
    try {
      const js = this.jetStream?.js;
      if (js && !message.ephemeral && (await this.capturedByStream(topic, subject))) {
        await js.publish(subject, message.body, message.messageId ? { msgID: message.messageId } : undefined);
        return;
      }
      // While reconnecting, nats.js buffers the publish and sends it once connected.
      nc.publish(subject, message.body, message.messageId && js ? { headers: this.msgIdHeader(message.messageId) } : undefined);
    } catch (cause) {
      if (this.closed || nc.isClosed() || nc.isDraining()) throw closedError(this.kind);
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `nats publish to ${subject} failed: ${(cause as Error).message}`, { cause });
    }
  }

  /**
   * Durable topics get their stream before the first publish, so what is sent before the
   * first consumer subscribes is kept. Other subjects use a stream only if one exists.
   * Ephemeral publishes (replies) never get here.
   */
  private capturedByStream(topic: string, subject: string): Promise<boolean> {
    let known = this.streamSubjects.get(subject);
    if (!known) {
      const durable = this.options.durable as Required<DurableOptions>;
      const { jsm, nats } = this.jetStream as JetStreamContext;
      known = durable.topics(topic) ? ensureStream(jsm, nats, subject, durable).then(() => true) : jsm.streams.find(subject).then(() => true, () => false);
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
    const maxInflight = positiveInteger(options.maxInflight ?? this.options.maxInflight, 'subscribe: maxInflight');
    const queue = new DeliveryQueue({
      handler,
      maxInflight,
      // After the client's callback, not inside it; I/O keeps the loop turning.
      schedule: queueMicrotask,
      maxPending: this.options.maxPending,
      // A deferred JetStream message is held here; in-progress acks well inside ack_wait keep it ours.
      ...(this.options.durable ? { workingEveryMs: Math.max(1, Math.floor(this.options.durable.ackWaitMs / 3)) } : {}),
      onOverflow: (dropped) => {
        this.options.metrics.transportDropped?.('nats', 'slow-consumer');
        this.logger.warn({ topic, deliveryId: dropped.deliveryId, maxPending: this.options.maxPending }, 'nats slow consumer: message dropped');
      },
    });
    const durable = this.options.durable;
    const jetStream = this.jetStream;
    if (durable && jetStream && options.group !== undefined && !options.ephemeral && durable.topics(topic)) {
      const stream = await ensureStream(jetStream.jsm, jetStream.nats, subject, durable);
      this.streamSubjects.set(subject, Promise.resolve(true));
      const messages = await consumeDurably(jetStream, stream, `${options.group}.${topic}`, durable, maxInflight, topic, queue);
      return this.track(topic, async () => {
        // Hand back what was received but not yet handed out: another member (or this
        // agent after a restart) gets it at once instead of after ack_wait.
        for (const waiting of queue.close()) waiting.settleRemote?.nak(0);
        await messages.close();
      });
    }
    const sub: NatsSubscription = nc.subscribe(subject, {
      queue: options.group,
      callback: (error, msg) => {
        if (error) return this.logger.error({ err: error, topic }, 'nats subscription error');
        queue.push({ topic, body: msg.data, key: undefined, deliveryId: `${subject}#${this.deliveryTag}.${++this.deliverySeq}`, attempt: 1 });
      },
    });
    // Resolves once the server has registered the interest: later publishes reach us.
    await nc.flush();
    return this.track(topic, async () => {
      queue.close();
      if (!sub.isClosed()) sub.unsubscribe();
    });
  }

  protected async shutdown(): Promise<void> {
    const nc = this.nc;
    if (!nc || nc.isClosed()) return;
    await nc.drain().catch(() => undefined);
    // nats.js's drain resolves without closing when its last flush fails (the server is gone
    // and the client reconnecting): only close() ends the reconnect loop and the process.
    if (!nc.isClosed()) await nc.close();
  }

  /** Exposed for tests and tools: the stream a durable subscription on `topic` uses. */
  streamNameFor(topic: string): string {
    return jetStreamName(this.options.subjectPrefix + topic);
  }
}

export function natsTransport(options: NatsTransportOptions): RpcTransport {
  return new NatsTransport(options);
}
