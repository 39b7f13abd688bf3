/**
 * The one interface every transport implements. A transport moves bytes between topics;
 * it never decodes envelopes for routing, checks auth or dedupes — the inbox does that,
 * the same way for every transport.
 *
 * How the different kinds fit without special cases in the core:
 * - Brokers (NATS, Kafka): `publish` sends to a subject/topic; `subscribe` consumes it,
 *   fanned out or shared by a group; ack/nack map to commits / JetStream acks.
 * - In-process (memory): the same, inside one process.
 *
 * Peers that speak another protocol (remote nodes' session API, A2A agents) are reached
 * through gateways (src/gateway.ts), not transports.
 */

/**
 * A transport's name and the scheme of the replyTo addresses it serves: `memory`, `nats`,
 * `kafka`, or whatever a plug-in adds (lower-case, `[a-z][a-z0-9+.-]*`). Config
 * checks it against the loaded plug-ins (src/transport-plugin.ts).
 */
export type TransportKind = string;

export interface OutboundMessage {
  /** Encoded envelope. */
  readonly body: Uint8Array;
  /** Ordering key: transports with `orderedByKey` keep publish order per key (Kafka partition key). */
  readonly key?: string;
  /** Publisher-side identity for broker dedupe of publish retries (e.g. `Nats-Msg-Id`). */
  readonly messageId?: string;
  /** The topic is ephemeral (see SubscribeOptions.ephemeral): create no durable storage for it. */
  readonly ephemeral?: boolean;
  /** Past this time (ms since the epoch; the envelope's deadline) nobody waits for it: brokers with message expiry may discard it. */
  readonly expiresAt?: number;
}

/** Where a delivery came from: kept in DLQ records and logs. */
export interface DeliveryCoordinates {
  readonly topic: string;
  readonly partition?: number;
  readonly offset?: string;
  /** The transport's own identity of this message (stable across redeliveries). */
  readonly deliveryId: string;
}

export interface Delivery {
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly coordinates: DeliveryCoordinates;
  /** 1 on first delivery, +1 on every redelivery the transport knows about. */
  readonly attempt: number;
  /**
   * The broker has given up on this message (its redelivery limit is reached, e.g.
   * JetStream max_deliver) and hands it over one last time: the inbox dead-letters it.
   */
  readonly exhausted?: boolean;
  /** Processing finished; the transport may forget the message (commit, ack). Idempotent. */
  ack(): void;
  /**
   * Processing failed; deliver again (after `delayMs` if given) where the transport
   * supports redelivery (`traits.redelivery`). Idempotent; ack after nack is ignored.
   */
  nack(options?: { delayMs?: number }): void;
  /**
   * Another run of this message is under way (its dedupe claim is held): hand it over
   * again after `delayMs` **without counting an attempt** — `attempt` stays the same and a
   * broker with a delivery limit (JetStream max_deliver) does not count a delivery. Settles
   * the delivery like nack. A transport that cannot redeliver uncounted treats it as nack.
   */
  defer(delayMs: number): void;
}

/**
 * Called once per delivery and never awaited by the transport: completion is signalled
 * with `ack()`/`nack()`, which also frees the subscription's in-flight slot.
 */
export type DeliveryHandler = (delivery: Delivery) => void;

export interface SubscribeOptions {
  /** Shared delivery: subscribers with the same group split the messages. Omitted: fan-out. */
  readonly group?: string;
  /**
   * Deliveries handed to the handler and not yet settled. At the limit the transport stops
   * consuming and resumes when one settles. Default: the transport's own (documented) value.
   */
  readonly maxInflight?: number;
  /**
   * The topic lives only as long as this subscriber (a node instance's reply topic):
   * brokers give it no durable storage (no JetStream stream) and one partition, and no
   * consumer group outlives the subscriber.
   */
  readonly ephemeral?: boolean;
}

export interface Subscription {
  readonly topic: string;
  /** Stop receiving. Deliveries already handed out may still be settled. */
  close(): Promise<void>;
}

export interface TransportTraits {
  /** `nack()` makes the transport deliver the message again. */
  readonly redelivery: boolean;
  /** Messages with the same key reach the handler in publish order. */
  readonly orderedByKey: boolean;
  /** Messages published while nobody subscribes are kept for the first subscriber (group). */
  readonly retainsUnconsumed: boolean;
  /** `subscribe` consumes what other processes publish. */
  readonly remoteSubscribe: boolean;
  /**
   * Subscribers without a group each get every message. Absent means true; `false` for a
   * queue that only hands each message to one consumer (SQS without SNS in front).
   */
  readonly fanOut?: boolean;
}

/** A broker server, as spans name it (OpenTelemetry `server.address`, `server.port`). */
export interface BrokerEndpoint {
  /** Host name as configured (no reverse lookup), or IP address. */
  readonly address: string;
  readonly port: number | undefined;
}

export interface RpcTransport {
  readonly kind: TransportKind;
  readonly traits: TransportTraits;
  /**
   * Brokers: the server the transport is connected to — the one the client reports where it
   * does (NATS, MQTT), else the first configured one. Kept up to date when the connection is
   * made or changes, so reading it costs nothing; undefined before the first connection and
   * for transports without a broker (memory).
   */
  readonly brokerEndpoint?: BrokerEndpoint | undefined;
  /** Idempotent. Resolves when publish and subscribe can be used. */
  connect(): Promise<void>;
  /**
   * Resolves once the transport has taken responsibility for the message (broker ack where
   * there is one). Rejects with an RpcError (`EAGENTRPC_TRANSPORT_CLOSED`,
   * `EAGENTRPC_PUBLISH_FAILED`, `EAGENTRPC_BUSY`) — never loses a message silently.
   */
  publish(topic: string, message: OutboundMessage): Promise<void>;
  /**
   * Resolves once the subscription is positioned: every message published after that
   * reaches it (for Kafka: group joined, partitions assigned, offsets fetched). A caller
   * relies on this to never send a request before it can receive the reply.
   */
  subscribe(topic: string, handler: DeliveryHandler, options?: SubscribeOptions): Promise<Subscription>;
  /** Stops every subscription, then rejects further publishes. Idempotent. */
  close(): Promise<void>;
  /**
   * Transports with a connection that can drop (brokers): the node registers here to hear
   * when it is lost and when it is back. Calls waiting on a connection that stays lost past
   * the node's grace are settled as abandoned instead of waiting for their deadline. A
   * transport without it is taken to be always connected.
   */
  onConnectionState?(listener: (state: ConnectionState) => void): void;
}

/** `lost`: the transport cannot currently carry messages (reconnecting); `connected`: it can again. */
export type ConnectionState = 'connected' | 'lost';

/** `memory://agents.a.responses` → `{kind: 'memory', topic: 'agents.a.responses'}`. */
export function formatReplyTo(kind: TransportKind, topic: string): string {
  return `${kind}://${topic}`;
}

export function parseReplyTo(replyTo: string): { scheme: string; topic: string } | undefined {
  const at = replyTo.indexOf('://');
  if (at <= 0) return undefined;
  const topic = replyTo.slice(at + 3);
  return topic.length === 0 ? undefined : { scheme: replyTo.slice(0, at), topic };
}
