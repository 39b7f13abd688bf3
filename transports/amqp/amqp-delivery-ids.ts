import { randomBytes } from 'node:crypto';
import type { AsyncMessage } from 'rabbitmq-client';

/** The header that keeps a message's delivery id on the copies the subscriber republishes. */
export const DELIVERY_ID_HEADER = 'x-agentrpc-delivery-id';

/**
 * Delivery ids of one consumer. The id names one broker message across its redeliveries
 * (replay protection tells a redelivery from a replay by it, see docs/auth.md), so it must
 * not come from the publisher: the `message-id` property is whatever a publisher sets, and
 * a captured request published again with it would pass as a redelivery. A message gets a
 * fresh id when a consumer first takes it; the subscriber's republishes (nack, a member gone
 * away) carry it in DELIVERY_ID_HEADER, believed only on messages routed through an
 * exchange agent-rpc alone publishes to. A message the broker itself delivers again
 * (`redelivered`, which no publisher can set) to this process after its connection was
 * lost gets back the id this consumer gave it, found by its message-id among the last ones
 * handed out here; in another process it gets a fresh one.
 */
export class DeliveryIds {
  private readonly prefix = `amqp:${randomBytes(6).toString('hex')}.`;
  private seq = 0;
  /** message-id property → the id given here, for the last `capacity` messages. */
  private readonly recent = new Map<string, string>();
  /**
   * The message-ids of `recent` and the ids given, oldest first, in a ring: the oldest is
   * forgotten without walking the map (taking a Map's first key steps over every entry
   * deleted before it, which with one deletion per message grew to a few % of a call).
   */
  private readonly ringKeys: Array<string | undefined>;
  private readonly ringIds: Array<string | undefined>;
  private next = 0;

  constructor(
    private readonly capacity: number,
    private readonly trusted: ReadonlySet<string>,
  ) {
    this.ringKeys = new Array<string | undefined>(capacity).fill(undefined);
    this.ringIds = new Array<string | undefined>(capacity).fill(undefined);
  }

  of(message: AsyncMessage): string {
    const headers = message.headers;
    if (headers !== undefined) {
      const kept = headers[DELIVERY_ID_HEADER];
      if (typeof kept === 'string' && kept.length > 0 && this.trusted.has(message.exchange)) return kept;
    }
    const property = message.messageId;
    if (message.redelivered && property !== undefined) {
      const given = this.recent.get(property);
      if (given !== undefined) return given;
    }
    const id = this.prefix + ++this.seq;
    if (property !== undefined) this.remember(property, id);
    return id;
  }

  private remember(property: string, id: string): void {
    const slot = this.next;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    const evicted = this.ringKeys[slot];
    // The same message-id seen again later owns the map entry now: only the slot's own id is forgotten.
    if (evicted !== undefined && this.recent.get(evicted) === this.ringIds[slot]) this.recent.delete(evicted);
    this.ringKeys[slot] = property;
    this.ringIds[slot] = id;
    this.recent.set(property, id);
  }
}
