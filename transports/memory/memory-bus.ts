import { RpcError } from '../../src/errors.js';
import type { Delivery, DeliveryHandler, OutboundMessage } from '../../src/transport.js';

/**
 * The in-process "broker": topics, shared groups and fan-out subscribers. Several memory
 * transports (one per agent node) share one bus to talk to each other inside a process.
 * There is no global bus: create one and hand it to every transport that should meet.
 *
 * Semantics, chosen to behave like a small durable broker:
 * - a message published while nobody subscribes is retained (bounded) for the first subscriber;
 * - fan-out subscribers get what is published after they subscribe;
 * - within a group, a key always goes to the same member, so per-key order holds;
 * - nack() redelivers (optionally after a delay), with the attempt counted.
 */

export interface MemoryBusOptions {
  /** Messages retained per topic or group while nobody consumes them. Default 10,000. */
  readonly retainLimit?: number;
}

interface StoredMessage {
  readonly topic: string;
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly seq: number;
  attempt: number;
}

export class MemoryMember {
  readonly queue: StoredMessage[] = [];
  inflight = 0;
  closed = false;
  private scheduled = false;

  constructor(
    readonly topic: TopicState,
    readonly group: GroupState | undefined,
    private readonly handler: DeliveryHandler,
    private readonly maxInflight: number,
  ) {}

  enqueue(message: StoredMessage): void {
    this.queue.push(message);
    this.schedule();
  }

  /** Delivery runs on a later turn of the event loop, never inside publish(). */
  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    while (!this.closed && this.inflight < this.maxInflight && this.queue.length > 0) {
      const message = this.queue.shift() as StoredMessage;
      this.inflight++;
      this.deliver(message);
    }
  }

  private deliver(message: StoredMessage): void {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      this.inflight--;
      if (this.queue.length > 0) this.schedule();
      return true;
    };
    const delivery: Delivery = {
      body: message.body,
      key: message.key,
      coordinates: { topic: message.topic, offset: String(message.seq), deliveryId: `${message.topic}#${message.seq}` },
      attempt: message.attempt,
      ack: () => {
        settle();
      },
      nack: (options) => {
        if (!settle()) return;
        message.attempt++;
        const delay = options?.delayMs ?? 0;
        if (delay > 0) setTimeout(() => this.redeliver(message), delay).unref();
        else this.redeliver(message);
      },
    };
    try {
      this.handler(delivery);
    } catch {
      // A handler must settle its deliveries itself; one that throws synchronously is
      // treated as a failed attempt so the message is not lost.
      delivery.nack();
    }
  }

  /** A nacked message returns to this member, or to its group if this member has left. */
  private redeliver(message: StoredMessage): void {
    if (!this.closed) this.enqueue(message);
    else if (this.group) this.group.route(message);
  }

  close(): void {
    this.closed = true;
    if (this.group) {
      this.group.remove(this);
      for (const message of this.queue.splice(0)) this.group.route(message);
    } else {
      this.topic.fanout.delete(this);
    }
  }
}

export class GroupState {
  readonly members: MemoryMember[] = [];
  readonly backlog: StoredMessage[] = [];
  private nextMember = 0;

  constructor(private readonly retainLimit: number) {}

  route(message: StoredMessage): boolean {
    const count = this.members.length;
    if (count === 0) {
      if (this.backlog.length >= this.retainLimit) return false;
      this.backlog.push(message);
      return true;
    }
    const index = message.key === undefined ? this.nextMember++ % count : hashKey(message.key) % count;
    (this.members[index] as MemoryMember).enqueue(message);
    return true;
  }

  add(member: MemoryMember): void {
    this.members.push(member);
    for (const message of this.backlog.splice(0)) this.route(message);
  }

  remove(member: MemoryMember): void {
    const index = this.members.indexOf(member);
    if (index >= 0) this.members.splice(index, 1);
  }
}

export class TopicState {
  readonly fanout = new Set<MemoryMember>();
  readonly groups = new Map<string, GroupState>();
  /** Held while the topic has neither fan-out subscribers nor groups. */
  readonly unclaimed: StoredMessage[] = [];
  seq = 0;

  constructor(readonly name: string) {}
}

export class MemoryBus {
  private readonly topics = new Map<string, TopicState>();
  readonly retainLimit: number;

  constructor(options: MemoryBusOptions = {}) {
    const limit = options.retainLimit ?? 10_000;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError('MemoryBus: retainLimit must be a non-negative integer');
    this.retainLimit = limit;
  }

  topic(name: string): TopicState {
    let state = this.topics.get(name);
    if (!state) {
      state = new TopicState(name);
      this.topics.set(name, state);
    }
    return state;
  }

  publish(topicName: string, message: OutboundMessage): void {
    const topic = this.topic(topicName);
    // Copy so a publisher reusing its buffer cannot change what subscribers see.
    const stored: StoredMessage = { topic: topicName, body: message.body.slice(), key: message.key, seq: ++topic.seq, attempt: 1 };
    if (topic.fanout.size === 0 && topic.groups.size === 0) {
      if (topic.unclaimed.length >= this.retainLimit) throw busy(topicName, this.retainLimit);
      topic.unclaimed.push(stored);
      return;
    }
    for (const member of topic.fanout) member.enqueue({ ...stored });
    for (const group of topic.groups.values()) {
      if (!group.route({ ...stored })) throw busy(topicName, this.retainLimit);
    }
  }

  join(topicName: string, handler: DeliveryHandler, group: string | undefined, maxInflight: number): MemoryMember {
    const topic = this.topic(topicName);
    let groupState: GroupState | undefined;
    if (group !== undefined) {
      groupState = topic.groups.get(group);
      if (!groupState) {
        groupState = new GroupState(this.retainLimit);
        topic.groups.set(group, groupState);
      }
    }
    const member = new MemoryMember(topic, groupState, handler, maxInflight);
    if (groupState) groupState.add(member);
    else topic.fanout.add(member);
    // The first consumer of a topic takes what was published before anyone listened.
    for (const message of topic.unclaimed.splice(0)) {
      if (groupState) groupState.route(message);
      else member.enqueue(message);
    }
    return member;
  }
}

function busy(topic: string, limit: number): RpcError {
  return new RpcError('EAGENTRPC_BUSY', `memory topic ${topic} holds ${limit} unconsumed messages`, { details: { topic, limit } });
}

/** FNV-1a: cheap, stable across runs, good enough to spread keys over a few members. */
function hashKey(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
