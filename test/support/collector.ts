import type { Delivery, DeliveryHandler } from '../../src/transport.js';

/**
 * Records deliveries and lets a test wait for a count — the event, not a sleep. A wait
 * that is never satisfied fails with what did arrive, after `timeoutMs`.
 */
export class Collector {
  readonly deliveries: Delivery[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly options: { autoAck?: boolean } = {}) {}

  readonly handler: DeliveryHandler = (delivery) => {
    this.deliveries.push(delivery);
    if (this.options.autoAck) delivery.ack();
    this.waiters = this.waiters.filter((w) => {
      if (this.deliveries.length < w.count) return true;
      w.resolve();
      return false;
    });
  };

  async waitFor(count: number, timeoutMs = 10_000): Promise<Delivery[]> {
    if (this.deliveries.length < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} deliveries, got ${this.deliveries.length} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.deliveries.slice(0, count);
  }
}
