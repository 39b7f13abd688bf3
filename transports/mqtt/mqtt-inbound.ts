import type { IPublishPacket, MqttClient } from 'mqtt';
import type { Logger } from '../../src/logger.js';
import type { RpcMetrics } from '../../src/observability/index.js';
import type { DeliveryQueue, QueuedMessage } from '../shared/delivery-queue.js';

/** How long a message a resumed session redelivers waits for this run to subscribe to its topic. */
const PARK_MS = 60_000;

export interface Route {
  readonly topic: string;
  /** The MQTT topic filter subscribed (`$share/<group>/<topic>` for a group). */
  readonly filter: string;
  readonly queue: DeliveryQueue;
}

export interface InboundContext {
  readonly clientId: string;
  readonly metrics: RpcMetrics;
  readonly logger: Logger;
  /** The transport's client (one for its life; it reconnects itself). */
  client(): MqttClient | undefined;
  /** The transport was closed: a held message's topic is no longer unsubscribed on its behalf. */
  closed(): boolean;
}

interface Parked {
  readonly packet: IPublishPacket;
  readonly generation: number;
}

type Unrouted = 'unsubscribed' | 'unclaimed';

/**
 * The receiving side of the MQTT transport: which subscription each message is for (its
 * MQTT 5 subscription identifiers), its delivery id, and its one PUBACK once every copy
 * handed out was settled — sent by the transport, not by MQTT.js when its handler returns.
 */
export class MqttInbound {
  /** Subscription identifier (MQTT 5) → where its messages go; a copy per matching subscription. */
  readonly routes = new Map<number, Route>();
  /** Identifiers of subscriptions closed here: their late messages are acked and dropped. */
  readonly closedIds = new Set<number>();
  /** Counts connections: a PUBACK is only sent on the connection that received the message. */
  generation = 0;
  /** Messages for subscriptions of a previous run of this session, held unacked until this run subscribes to their topic. */
  private parked: Parked[] = [];
  private deliverySeq = 0;
  /**
   * Packet identifier → delivery id of the messages handed out and not PUBACKed yet. The
   * broker sends such a message again after a reconnect with the same identifier and DUP
   * set, which no publisher can set on the way to a subscriber: it keeps its delivery id,
   * so replay protection takes it as a redelivery of the same broker message.
   */
  private readonly unacked = new Map<number, string>();

  constructor(private readonly context: InboundContext) {}

  /** Hands a message to every subscription it was delivered for (its subscription identifiers). */
  route(packet: IPublishPacket): void {
    const raw = packet.properties?.subscriptionIdentifier;
    // Nearly every message matches one subscription of this run: no arrays for it.
    if (typeof raw === 'number') {
      const route = this.routes.get(raw);
      if (route !== undefined) return this.deliver(packet, [route], this.generation, 'unsubscribed');
    }
    const ids = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const routes = ids.map((id) => this.routes.get(id)).filter((r) => r !== undefined);
    if (routes.length > 0 || ids.some((id) => this.closedIds.has(id))) return this.deliver(packet, routes, this.generation, 'unsubscribed');
    // A resumed session sends what the previous run left unacked before this run subscribes.
    const held = { packet, generation: this.generation };
    this.parked.push(held);
    setTimeout(() => this.unclaimed(held), PARK_MS).unref();
  }

  /** What a resumed session sent for `mqttTopic` before this run subscribed to it: now `route`'s. */
  claimParked(mqttTopic: string, route: Route): void {
    const mine = this.parked.filter((held) => held.packet.topic === mqttTopic);
    if (mine.length === 0) return;
    this.parked = this.parked.filter((held) => held.packet.topic !== mqttTopic);
    for (const held of mine) this.deliver(held.packet, [route], held.generation, 'unsubscribed');
  }

  /**
   * A held message whose topic this run never subscribed to (the reply topic of a run that
   * crashed): acked without delivery, and the session's old subscription to it ended.
   */
  private unclaimed(held: Parked): void {
    if (!this.parked.includes(held)) return;
    this.parked = this.parked.filter((other) => other !== held);
    this.deliver(held.packet, [], held.generation, 'unclaimed');
    if (!this.context.closed()) this.context.client()?.unsubscribe(held.packet.topic);
  }

  /** `reason`: why nobody gets it, when `routes` is empty. */
  private deliver(packet: IPublishPacket, routes: readonly Route[], generation: number, reason: Unrouted): void {
    const ack = new PacketAck(this, packet, this.deliveryIdOf(packet), generation, routes.length);
    if (routes.length === 0) {
      this.context.metrics.transportDropped?.('mqtt', reason);
      this.context.logger.warn({ mqttTopic: packet.topic, reason }, 'mqtt message no subscription here wants: acked without delivery');
      ack.pending = 1;
      return ack.settleOne();
    }
    for (const { topic, queue } of routes) queue.push(new MqttCopy(topic, packet.payload as Uint8Array, ack, queue));
  }

  /** The client id and a counter; a QoS 1 message the broker sends again (DUP) keeps the id it had here. */
  private deliveryIdOf(packet: IPublishPacket): string {
    const { messageId } = packet;
    if (packet.qos !== 1 || messageId === undefined) return `${this.context.clientId}#${++this.deliverySeq}`;
    const given = packet.dup ? this.unacked.get(messageId) : undefined;
    if (given !== undefined) return given;
    const id = `${this.context.clientId}#${++this.deliverySeq}`;
    // Keyed by a 16-bit identifier: at most 65,535 entries, even for messages never sent again.
    this.unacked.set(messageId, id);
    return id;
  }

  /** The PUBACK of a message every copy of which was settled. */
  puback(packet: IPublishPacket, deliveryId: string, generation: number): void {
    const messageId = packet.messageId;
    const client = this.context.client();
    if (packet.qos !== 1 || messageId === undefined || client === undefined) return;
    // After a reconnect the broker sends the message again itself: acking the old id could ack another message.
    if (generation !== this.generation || !client.connected) return;
    if (this.unacked.get(messageId) === deliveryId) this.unacked.delete(messageId);
    (client as unknown as { _sendPacket(p: object): void })._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 });
  }
}

/** One PUBACK per message, once every subscription that got a copy has settled it. */
class PacketAck {
  constructor(
    private readonly inbound: MqttInbound,
    private readonly packet: IPublishPacket,
    readonly deliveryId: string,
    private readonly generation: number,
    public pending: number,
  ) {}

  settleOne(): void {
    if (--this.pending > 0) return;
    this.inbound.puback(this.packet, this.deliveryId, this.generation);
  }
}

/** A subscription's copy of a message, as its DeliveryQueue holds it; settled at the broker through its PacketAck. */
class MqttCopy implements QueuedMessage {
  readonly key = undefined;
  readonly deliveryId: string;
  attempt = 1;
  readonly settleRemote = this;

  constructor(
    readonly topic: string,
    readonly body: Uint8Array,
    private readonly packetAck: PacketAck,
    private readonly queue: DeliveryQueue,
  ) {
    this.deliveryId = packetAck.deliveryId;
  }

  ack(): void {
    this.packetAck.settleOne();
  }

  /** No nack in MQTT: delivered again from here, the attempt counted. */
  nak(delayMs: number): void {
    this.attempt++;
    if (delayMs > 0) setTimeout(() => this.queue.push(this), delayMs).unref();
    else this.queue.push(this);
  }
}
