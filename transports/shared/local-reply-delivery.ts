import { createDelivery, handOver } from '../../src/delivery.js';
import type { DeliveryHandler } from '../../src/transport.js';

/**
 * Hands a reply made in this process (the HTTP and A2A transports turn a remote answer
 * into a response envelope) to the reply subscription of `topic`. No broker keeps it, so a
 * nack hands it over again after the delay with the next attempt, a defer with the same
 * one. False when nobody subscribes to `topic` (the caller stopped listening).
 */
export function deliverLocalReply(subscribers: ReadonlyMap<string, DeliveryHandler>, topic: string, body: Uint8Array, deliveryId: string, attempt = 1): boolean {
  const handler = subscribers.get(topic);
  if (!handler) return false;
  const again = (nextAttempt: number) => (delayMs: number) => setTimeout(() => deliverLocalReply(subscribers, topic, body, deliveryId, nextAttempt), delayMs).unref();
  handOver(handler, createDelivery({ body, key: undefined, coordinates: { topic, deliveryId }, attempt, onAck: () => undefined, onNack: again(attempt + 1), onDefer: again(attempt) }));
  return true;
}
