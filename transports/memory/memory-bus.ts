import { nonNegativeInteger } from '../../src/check-integer.js';
import { RpcError } from '../../src/errors.js';
import type { DeliveryHandler, OutboundMessage } from '../../src/transport.js';
import { DeliveryQueue, type QueuedMessage } from '../shared/delivery-queue.js';

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

export class MemoryMember {
  private readonly deliveries: DeliveryQueue;
  closed = false;

  constructor(
    readonly topic: TopicState,
    readonly group: GroupState | undefined,
    handler: DeliveryHandler,
    maxInflight: number,
  ) {
    // setImmediate, not a microtask: an in-process call loop would otherwise never yield
    // to timers and I/O.
    this.deliveries = new DeliveryQueue({ handler, maxInflight, schedule: (drain) => setImmediate(drain), redeliver: (m) => this.redeliver(m) });
  }

  enqueue(message: QueuedMessage): void {
    this.deliveries.push(message);
  }

  /** A nacked message returns to this member, or to its group if this member has left. */
  private redeliver(message: QueuedMessage): void {
    if (!this.closed) this.enqueue(message);
    else if (this.group) this.group.route(message);
  }

  close(): void {
    this.closed = true;
    const left = this.deliveries.close();
    if (this.group) {
      this.group.remove(this);
      for (const message of left) this.group.route(message);
    } else {
      this.topic.fanout.delete(this);
    }
  }
}

export class GroupState {
  readonly members: MemoryMember[] = [];
  readonly backlog: QueuedMessage[] = [];
  private nextMember = 0;

  constructor(private readonly retainLimit: number) {}

  route(message: QueuedMessage): boolean {
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
  readonly unclaimed: QueuedMessage[] = [];
  seq = 0;

  constructor(readonly name: string) {}
}

export class MemoryBus {
  private readonly topics = new Map<string, TopicState>();
  readonly retainLimit: number;

  constructor(options: MemoryBusOptions = {}) {
    this.retainLimit = nonNegativeInteger(options.retainLimit ?? 10_000, 'MemoryBus: retainLimit');
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
    const seq = ++topic.seq;
    const stored: QueuedMessage = { topic: topicName, body: message.body.slice(), key: message.key, deliveryId: `${topicName}#${seq}`, offset: String(seq), attempt: 1 };
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
