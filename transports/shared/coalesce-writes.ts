import type { Writable } from 'node:stream';

/** Sockets already wrapped: a second wrapper would only add a cork of its own. */
const coalescing = new WeakSet<Writable>();

/**
 * Gathers what a client library writes to `socket` during one callback of the event loop (a
 * socket read, a timer, one immediate) and the ticks and promise jobs it causes into one
 * system call. With `noDelay` (which a lone call needs: Nagle's algorithm would hold it ~40 ms
 * for the peer's delayed ACK) every write is a syscall and a TCP segment of its own, and
 * rabbitmq-client writes each publish and each ack by itself: ~3.5 write calls per sync call.
 * (MQTT.js needs none of this: mqtt-packet corks its stream until the next tick.)
 *
 * The first write corks the socket; a microtask queues the uncork as a tick, which runs once
 * the microtask queue is empty (a tick queued directly would run before the promise jobs of
 * the callback). So no write waits for other I/O. Uncorking at `setImmediate` instead, after
 * the rest of the loop's turn, batched more on a quiet machine but held one turn's writes
 * through the next turn's reads: on a loaded machine it stalled the broker for whole time
 * slices. Order is kept (one stream), and back-pressure too: a corked socket past its
 * high-water mark makes `write` return false and the library waits for `drain` as before;
 * `end()` flushes.
 */
export function coalesceWrites(socket: Writable): void {
  if (coalescing.has(socket)) return;
  coalescing.add(socket);
  const write = socket.write;
  let corked = false;
  const flush = (): void => {
    corked = false;
    socket.uncork();
  };
  const flushAfterMicrotasks = (): void => process.nextTick(flush);
  socket.write = function coalescedWrite(this: Writable, ...args: Parameters<Writable['write']>): boolean {
    if (!corked && !socket.destroyed) {
      corked = true;
      socket.cork();
      queueMicrotask(flushAfterMicrotasks);
    }
    return (write as (...a: Parameters<Writable['write']>) => boolean).apply(this, args);
  } as Writable['write'];
}
