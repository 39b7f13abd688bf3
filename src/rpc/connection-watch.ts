import type { Logger } from '../logger.js';
import type { ConnectionState, RpcTransport, TransportKind } from '../transport.js';
import type { PendingRegistry } from './pending-registry.js';

/**
 * Turns a transport's connection reports into answers for the calls waiting on it. While
 * a connection is lost, a call that reaches its deadline ends as abandoned
 * (`connection-lost`) rather than timed out: the caller learns why. With a `graceMs`, a
 * lost connection is given that long to come back (a broker restart, a reconnect round);
 * past it, the waiting calls are settled as abandoned at once and new calls on that
 * transport are refused the same way until it reports `connected` again.
 */
export class ConnectionWatch {
  /** Per lost transport: the grace timer, `expired` once its calls were abandoned, `waiting` without a grace. */
  private readonly lost = new Map<TransportKind, NodeJS.Timeout | 'expired' | 'waiting'>();
  private stopped = false;

  constructor(
    private readonly registry: PendingRegistry,
    private readonly graceMs: number | undefined,
    private readonly logger: Logger,
  ) {}

  watch(transport: RpcTransport): void {
    transport.onConnectionState?.((state: ConnectionState) => (state === 'lost' ? this.onLost(transport.kind) : this.onBack(transport.kind)));
  }

  /** The node is closing: its calls are settled by the registry's close, not here. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.lost.values()) if (typeof timer !== 'string') clearTimeout(timer);
    this.lost.clear();
  }

  private onLost(kind: TransportKind): void {
    if (this.stopped || this.lost.has(kind)) return;
    this.registry.connectionDown(kind);
    const { graceMs } = this;
    if (graceMs === undefined) {
      this.lost.set(kind, 'waiting');
      this.logger.warn({ transport: kind }, 'transport connection lost; waiting calls that reach their deadlines before it is back end as abandoned');
      return;
    }
    const timer = setTimeout(() => this.expire(kind, graceMs), graceMs);
    timer.unref();
    this.lost.set(kind, timer);
    this.logger.warn({ transport: kind, graceMs }, 'transport connection lost; waiting calls are abandoned if it is not back within the grace');
  }

  private onBack(kind: TransportKind): void {
    const timer = this.lost.get(kind);
    if (timer === undefined) return;
    if (typeof timer !== 'string') clearTimeout(timer);
    this.lost.delete(kind);
    this.registry.connectionRestored(kind);
    this.logger.info({ transport: kind }, 'transport connection back');
  }

  private expire(kind: TransportKind, graceMs: number): void {
    if (this.stopped) return;
    this.lost.set(kind, 'expired');
    this.registry.connectionLost(kind, graceMs);
  }
}
