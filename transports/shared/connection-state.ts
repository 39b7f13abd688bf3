import type { ConnectionState } from '../../src/transport.js';

/**
 * A transport's connection state from the parts that can lose it (Kafka: one consumer per
 * subscription): `lost` as soon as one part is lost, `connected` once every lost part is
 * back. Listeners hear each change once.
 */
export class ConnectionStateReporter {
  private readonly listeners: Array<(state: ConnectionState) => void> = [];
  private readonly lostParts = new Set<object>();

  listen(listener: (state: ConnectionState) => void): void {
    this.listeners.push(listener);
  }

  lost(part: object): void {
    if (this.lostParts.has(part)) return;
    this.lostParts.add(part);
    if (this.lostParts.size === 1) this.emit('lost');
  }

  /** Back, or gone (a closed part no longer holds the transport lost). */
  back(part: object): void {
    if (!this.lostParts.delete(part)) return;
    if (this.lostParts.size === 0) this.emit('connected');
  }

  private emit(state: ConnectionState): void {
    for (const listener of this.listeners) listener(state);
  }
}
