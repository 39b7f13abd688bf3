import type { IPublishPacket, MqttClient } from 'mqtt';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { DeliveryQueue, type QueuedMessage } from '../shared/delivery-queue.js';
import { mqttEndpoint } from '../shared/broker-endpoint.js';
import { closedError, TransportBase } from '../shared/transport-base.js';
import { firstConnection } from './mqtt-connect.js';
import { loadMqtt, mqttTopicOf, resolveMqttOptions, shareNameOf, type MqttTransportOptions, type ResolvedMqttOptions } from './mqtt-options.js';

/**
 * MQTT has no nack: a nack is redelivered from here, with the attempt counted. Nothing is
 * kept for a group that has not subscribed yet, and shared subscriptions do not keep order.
 */
const TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true };

/** How long a message a resumed session redelivers waits for this run to subscribe to its topic. */
const PARK_MS = 60_000;

/** Returned to MQTT.js from handleMessage: "do not send the PUBACK", the delivery's ack sends it. */
const ACK_LATER = new Error('acked after dispatch');

interface Route {
  readonly topic: string;
  /** The MQTT topic filter subscribed (`$share/<group>/<topic>` for a group). */
  readonly filter: string;
  readonly queue: DeliveryQueue;
}

/**
 * MQTT 5 transport (MQTT.js). One connection per transport, with a persistent session
 * (clean start off, session expiry set): the broker keeps its subscriptions and queues QoS 1
 * messages while the agent is away. Every message is QoS 1, acked (PUBACK) only when the
 * inbox settles it; groups are shared subscriptions (`$share/<group>/<topic>`).
 */
class MqttTransport extends TransportBase {
  readonly kind = 'mqtt';
  readonly traits = TRAITS;
  private readonly options: ResolvedMqttOptions;
  private client: MqttClient | undefined;
  /** Subscription identifier (MQTT 5) → where its messages go; a copy per matching subscription. */
  private readonly routes = new Map<number, Route>();
  /**
   * Subscription identifiers start at a random point: a restarted process then never takes
   * an identifier its previous run gave the session, whose messages may still arrive.
   */
  private nextSubscriptionId = 1 + Math.floor(Math.random() * 0x8000000);
  /** Identifiers of subscriptions closed here: their late messages are acked and dropped. */
  private readonly closedIds = new Set<number>();
  /** Messages for subscriptions of a previous run of this session, held unacked until this run subscribes to their topic. */
  private parked: Array<{ packet: IPublishPacket; generation: number }> = [];
  /** Counts connections: a PUBACK is only sent on the connection that received the message. */
  private generation = 0;
  private deliverySeq = 0;
  /**
   * Packet identifier → delivery id of the messages handed out and not PUBACKed yet. The
   * broker sends such a message again after a reconnect with the same identifier and DUP
   * set, which no publisher can set on the way to a subscriber: it keeps its delivery id,
   * so replay protection takes it as a redelivery of the same broker message.
   */
  private readonly unacked = new Map<number, string>();

  constructor(private readonly input: MqttTransportOptions) {
    const options = resolveMqttOptions(input);
    super(input.logger);
    this.options = options;
  }

  protected async open(): Promise<void> {
    const mqtt = await loadMqtt(this.input.loadModule);
    const { options } = this;
    const client = mqtt.connect(options.url, {
      protocolVersion: 5,
      clientId: options.clientId,
      clean: false,
      keepalive: options.keepaliveS,
      reconnectPeriod: 500,
      // Subscriptions are renewed by the transport on every reconnect (see renewSubscriptions).
      resubscribe: false,
      connectTimeout: Math.min(options.connectTimeoutMs, 10_000),
      properties: { sessionExpiryInterval: options.sessionExpiryS, receiveMaximum: options.receiveMaximum },
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
    });
    client.handleMessage = (packet, callback) => {
      this.route(packet);
      callback(packet.qos === 1 ? ACK_LATER : undefined);
    };
    client.on('connect', () => {
      // MQTT.js keeps the server it is connected to in its options.
      this.connectedTo(mqttEndpoint(client.options.host, client.options.port, options.url));
      // Small packets (PUBACKs, replies) must not wait for the peer's delayed ACK (Nagle).
      (client.stream as { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
      this.generation++;
      if (this.generation > 1) {
        this.renewSubscriptions(client);
        options.metrics.transportReconnected?.('mqtt');
        if (this.logger.isLevelEnabled('info')) this.logger.info({ url: options.url }, 'mqtt reconnected');
      }
    });
    client.on('error', (error) => this.logger.warn({ err: error }, 'mqtt client error'));
    this.client = client;
    try {
      await firstConnection(client, options.url, options.connectTimeoutMs);
    } catch (error) {
      this.client = undefined;
      client.end(true);
      throw error;
    }
  }

  /**
   * Subscribes again after a reconnect, even when the broker says the session is present:
   * Mosquitto 2.0 restores a session from its persistence file without its shared
   * subscriptions. Subscribing again to the same filter replaces the subscription; it
   * never doubles it.
   */
  private renewSubscriptions(client: MqttClient): void {
    for (const [id, { filter, topic }] of this.routes) {
      client.subscribe(filter, { qos: 1, properties: { subscriptionIdentifier: id } }, (error) => {
        if (error) this.logger.error({ err: error, topic }, 'mqtt: could not subscribe again after a reconnect');
      });
    }
  }

  /** Hands a message to every subscription it was delivered for (its subscription identifiers). */
  private route(packet: IPublishPacket): void {
    const raw = packet.properties?.subscriptionIdentifier;
    const ids = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const routes = ids.map((id) => this.routes.get(id)).filter((r) => r !== undefined);
    if (routes.length > 0 || ids.some((id) => this.closedIds.has(id))) return this.deliver(packet, routes, this.generation, 'unsubscribed');
    // A resumed session sends what the previous run left unacked before this run subscribes.
    const held = { packet, generation: this.generation };
    this.parked.push(held);
    setTimeout(() => this.unclaimed(held), PARK_MS).unref();
  }

  /**
   * A held message whose topic this run never subscribed to (the reply topic of a run that
   * crashed): acked without delivery, and the session's old subscription to it ended.
   */
  private unclaimed(held: { packet: IPublishPacket; generation: number }): void {
    if (!this.parked.includes(held)) return;
    this.parked = this.parked.filter((other) => other !== held);
    this.deliver(held.packet, [], held.generation, 'unclaimed');
    if (!this.closed) this.client?.unsubscribe(held.packet.topic);
  }

  /** `reason`: why nobody gets it, when `routes` is empty. */
  private deliver(packet: IPublishPacket, routes: readonly Route[], generation: number, reason: 'unsubscribed' | 'unclaimed'): void {
    const client = this.client as MqttClient;
    const messageId = packet.messageId;
    const deliveryId = this.deliveryIdOf(packet);
    let pending = routes.length;
    // One PUBACK per message, once every subscription that got a copy has settled it.
    const settleOne = (): void => {
      if (--pending > 0 || packet.qos !== 1 || messageId === undefined) return;
      // After a reconnect the broker sends the message again itself: acking the old id could ack another message.
      if (generation === this.generation && client.connected) {
        if (this.unacked.get(messageId) === deliveryId) this.unacked.delete(messageId);
        (client as unknown as { _sendPacket(p: object): void })._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 });
      }
    };
    if (routes.length === 0) {
      this.options.metrics.transportDropped?.('mqtt', reason);
      this.logger.warn({ mqttTopic: packet.topic, reason }, 'mqtt message no subscription here wants: acked without delivery');
      pending = 1;
      return settleOne();
    }
    for (const { topic, queue } of routes) {
      const message: QueuedMessage = {
        topic,
        body: packet.payload as Uint8Array,
        key: undefined,
        deliveryId,
        attempt: 1,
        settleRemote: {
          ack: settleOne,
          // No nack in MQTT: deliver again from here, the attempt counted.
          nak: (delayMs) => {
            message.attempt++;
            if (delayMs > 0) setTimeout(() => queue.push(message), delayMs).unref();
            else queue.push(message);
          },
        },
      };
      queue.push(message);
    }
  }

  /** The client id and a counter; a QoS 1 message the broker sends again (DUP) keeps the id it had here. */
  private deliveryIdOf(packet: IPublishPacket): string {
    const { messageId } = packet;
    if (packet.qos !== 1 || messageId === undefined) return `${this.options.clientId}#${++this.deliverySeq}`;
    const given = packet.dup ? this.unacked.get(messageId) : undefined;
    if (given !== undefined) return given;
    const id = `${this.options.clientId}#${++this.deliverySeq}`;
    // Keyed by a 16-bit identifier: at most 65,535 entries, even for messages never sent again.
    this.unacked.set(messageId, id);
    return id;
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    const client = this.client;
    if (this.closed || client === undefined) throw closedError(this.kind);
    const mqttTopic = mqttTopicOf(this.options.topicPrefix, topic);
    // Message expiry from the deadline: the broker drops what nobody waits for any more.
    const expiry = message.expiresAt === undefined ? undefined : Math.max(1, Math.ceil((message.expiresAt - Date.now()) / 1000));
    try {
      // Resolves on the broker's PUBACK; while reconnecting, MQTT.js keeps it and sends it once connected.
      await client.publishAsync(mqttTopic, Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength), {
        qos: 1,
        ...(expiry === undefined ? {} : { properties: { messageExpiryInterval: expiry } }),
      });
    } catch (cause) {
      if (this.closed || client.disconnecting) throw closedError(this.kind);
      throw new RpcError('EAGENTRPC_PUBLISH_FAILED', `mqtt publish to ${mqttTopic} failed: ${(cause as Error).message}`, { cause });
    }
  }

  async subscribe(topic: string, handler: DeliveryHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    await this.connect();
    const client = this.client as MqttClient;
    const maxInflight = positiveInteger(options.maxInflight ?? this.options.maxInflight, 'subscribe: maxInflight');
    const mqttTopic = mqttTopicOf(this.options.topicPrefix, topic);
    const filter = options.group === undefined ? mqttTopic : `$share/${shareNameOf(options.group)}/${mqttTopic}`;
    const id = this.nextSubscriptionId++;
    const queue = new DeliveryQueue({ handler, maxInflight, schedule: queueMicrotask });
    const route = { topic, filter, queue };
    this.routes.set(id, route);
    try {
      // Resolves on SUBACK: from then on the broker routes the topic's messages to us.
      const granted = await client.subscribeAsync(filter, { qos: 1, properties: { subscriptionIdentifier: id } });
      if (granted.some((grant) => grant.qos !== 1)) throw new Error(`subscription refused (reason ${granted.map((g) => g.qos).join(', ')})`);
      const mine = this.parked.filter((held) => held.packet.topic === mqttTopic);
      this.parked = this.parked.filter((held) => held.packet.topic !== mqttTopic);
      for (const held of mine) this.deliver(held.packet, [route], held.generation, 'unsubscribed');
    } catch (cause) {
      this.routes.delete(id);
      throw new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `mqtt subscribe to ${filter} failed: ${(cause as Error).message}`, { cause });
    }
    return this.track(topic, async () => {
      // Closing the transport keeps durable subscriptions in the session: the broker queues
      // for this agent while it is away. Closing one subscription, or an ephemeral one, ends it.
      const keep = this.closed && !options.ephemeral;
      if (!keep && client.connected) await client.unsubscribeAsync(filter).catch((error: unknown) => this.logger.warn({ err: error, topic }, 'mqtt unsubscribe failed'));
      this.routes.delete(id);
      this.closedIds.add(id);
      const left = queue.close();
      if (keep) return; // unacked: the broker sends them again when this session is back
      // Not handed out yet. MQTT cannot hand a message back to a group: publish it again for
      // the other members (fan-out subscribers of the topic see it twice; their dedupe
      // answers it once), then ack. A fan-out subscription that ended wants them no more.
      for (const message of left) {
        const again = options.group === undefined ? Promise.resolve() : client.publishAsync(mqttTopic, Buffer.from(message.body), { qos: 1 });
        await again.then(() => message.settleRemote?.ack(), (error: unknown) => this.logger.warn({ err: error, topic }, 'mqtt: could not hand a message back to its group'));
      }
    });
  }

  protected async shutdown(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    // A normal DISCONNECT keeps the session for sessionExpiryS.
    await client.endAsync(false).catch(() => client.end(true));
  }
}

export function mqttTransport(options: MqttTransportOptions): RpcTransport {
  return new MqttTransport(options);
}
