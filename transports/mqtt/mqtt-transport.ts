import type { MqttClient } from 'mqtt';
import { positiveInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { DeliveryHandler, OutboundMessage, RpcTransport, SubscribeOptions, Subscription, TransportTraits } from '../../src/transport.js';
import { DeliveryQueue } from '../shared/delivery-queue.js';
import { mqttEndpoint } from '../shared/broker-endpoint.js';
import { closedError, TransportBase } from '../shared/transport-base.js';
import { firstConnection } from './mqtt-connect.js';
import { MqttInbound } from './mqtt-inbound.js';
import { loadMqtt, mqttTopicOf, resolveMqttOptions, shareNameOf, type MqttTransportOptions, type ResolvedMqttOptions } from './mqtt-options.js';

/**
 * MQTT has no nack: a nack is redelivered from here, with the attempt counted. Nothing is
 * kept for a group that has not subscribed yet, and shared subscriptions do not keep order.
 */
const TRAITS: TransportTraits = { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true };

/** Topic names whose MQTT topic is kept (see mqttTopicFor). */
const MQTT_TOPICS_KEPT = 1024;

/** Returned to MQTT.js from handleMessage: "do not send the PUBACK", the delivery's ack sends it. */
const ACK_LATER = new Error('acked after dispatch');

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
  /** Routes, delivery ids and PUBACKs of what the broker sends. */
  private readonly inbound: MqttInbound;
  /**
   * Subscription identifiers start at a random point: a restarted process then never takes
   * an identifier its previous run gave the session, whose messages may still arrive.
   */
  private nextSubscriptionId = 1 + Math.floor(Math.random() * 0x8000000);
  /** Topic name → MQTT topic, for the topics published to (checked and built once each). */
  private readonly mqttTopics = new Map<string, string>();

  constructor(private readonly input: MqttTransportOptions) {
    const options = resolveMqttOptions(input);
    super(input.logger);
    this.options = options;
    this.inbound = new MqttInbound({ clientId: options.clientId, metrics: options.metrics, logger: this.logger, client: () => this.client, closed: () => this.closed });
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
      // MQTT.js logs through `debug` a dozen times per message, and a disabled `debug` still
      // gathers its arguments (~6 KB of garbage per call): silent unless DEBUG asks for it.
      ...(mqttJsDebugWanted() ? {} : { log: silent }),
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
    });
    client.handleMessage = (packet, callback) => {
      this.inbound.route(packet);
      callback(packet.qos === 1 ? ACK_LATER : undefined);
    };
    client.on('connect', () => {
      // MQTT.js keeps the server it is connected to in its options.
      this.connectedTo(mqttEndpoint(client.options.host, client.options.port, options.url));
      // Small packets (PUBACKs, replies) must not wait for the peer's delayed ACK (Nagle).
      // (What one callback writes leaves in one system call: mqtt-packet corks the stream.)
      (client.stream as { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
      this.inbound.generation++;
      if (this.inbound.generation > 1) {
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
    for (const [id, { filter, topic }] of this.inbound.routes) {
      client.subscribe(filter, { qos: 1, properties: { subscriptionIdentifier: id } }, (error) => {
        if (error) this.logger.error({ err: error, topic }, 'mqtt: could not subscribe again after a reconnect');
      });
    }
  }

  async publish(topic: string, message: OutboundMessage): Promise<void> {
    const client = this.client;
    if (this.closed || client === undefined) throw closedError(this.kind);
    const mqttTopic = this.mqttTopicFor(topic);
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

  /** The MQTT topic of a topic name, checked and built on its first publish (a wildcard is refused every time). */
  private mqttTopicFor(topic: string): string {
    let mqttTopic = this.mqttTopics.get(topic);
    if (mqttTopic === undefined) {
      mqttTopic = mqttTopicOf(this.options.topicPrefix, topic);
      // Bounded: topics with ids in them (tenants, instances) must not grow it without end.
      if (this.mqttTopics.size >= MQTT_TOPICS_KEPT) this.mqttTopics.clear();
      this.mqttTopics.set(topic, mqttTopic);
    }
    return mqttTopic;
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
    this.inbound.routes.set(id, route);
    try {
      // Resolves on SUBACK: from then on the broker routes the topic's messages to us.
      const granted = await client.subscribeAsync(filter, { qos: 1, properties: { subscriptionIdentifier: id } });
      if (granted.some((grant) => grant.qos !== 1)) throw new Error(`subscription refused (reason ${granted.map((g) => g.qos).join(', ')})`);
      this.inbound.claimParked(mqttTopic, route);
    } catch (cause) {
      this.inbound.routes.delete(id);
      throw new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `mqtt subscribe to ${filter} failed: ${(cause as Error).message}`, { cause });
    }
    return this.track(topic, async () => {
      // Closing the transport keeps durable subscriptions in the session: the broker queues
      // for this agent while it is away. Closing one subscription, or an ephemeral one, ends it.
      const keep = this.closed && !options.ephemeral;
      if (!keep && client.connected) await client.unsubscribeAsync(filter).catch((error: unknown) => this.logger.warn({ err: error, topic }, 'mqtt unsubscribe failed'));
      this.inbound.routes.delete(id);
      this.inbound.closedIds.add(id);
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

const silent = (): void => undefined;

/** DEBUG names MQTT.js's namespaces (`mqttjs*`, or everything): its own debug logging stays. */
function mqttJsDebugWanted(): boolean {
  const wanted = process.env['DEBUG'] ?? '';
  return wanted.includes('mqttjs') || wanted.split(/[\s,]+/).includes('*');
}

export function mqttTransport(options: MqttTransportOptions): RpcTransport {
  return new MqttTransport(options);
}
