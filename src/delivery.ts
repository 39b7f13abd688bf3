import type { Delivery, DeliveryCoordinates, DeliveryHandler } from './transport.js';

export interface DeliveryInit {
  readonly body: Uint8Array;
  readonly key: string | undefined;
  readonly coordinates: DeliveryCoordinates;
  readonly attempt: number;
  /** The broker will not deliver it again (see Delivery.exhausted). */
  readonly exhausted?: boolean;
  /** Runs once, on the first ack or nack, before onAck/onNack: frees the in-flight slot, where there is one. */
  readonly onSettle?: () => void;
  /** Processing finished: commit, ack at the broker. */
  readonly onAck: () => void;
  /** Processing failed: deliver again after `delayMs` (0: at once). */
  readonly onNack: (delayMs: number) => void;
  /** Deliver again after `delayMs` without counting an attempt (Delivery.defer). Default: onNack. */
  readonly onDefer?: (delayMs: number) => void;
}

/**
 * The Delivery every transport hands out: ack and nack settle it exactly once (the first
 * call wins, later ones do nothing), as the interface promises.
 */
export function createDelivery(init: DeliveryInit): Delivery {
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    init.onSettle?.();
    return true;
  };
  return {
    body: init.body,
    key: init.key,
    coordinates: init.coordinates,
    attempt: init.attempt,
    exhausted: init.exhausted,
    ack: () => {
      if (settle()) init.onAck();
    },
    nack: (options) => {
      if (settle()) init.onNack(options?.delayMs ?? 0);
    },
    defer: (delayMs) => {
      if (settle()) (init.onDefer ?? init.onNack)(delayMs);
    },
  };
}

/**
 * Gives a delivery to its handler. A handler must settle its deliveries itself; one that
 * throws synchronously is treated as a failed attempt so the message is not lost.
 */
export function handOver(handler: DeliveryHandler, delivery: Delivery): void {
  try {
    handler(delivery);
  } catch {
    delivery.nack();
  }
}
