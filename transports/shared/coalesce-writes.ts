import type { Writable } from 'node:stream';

/** Sockets already wrapped: a second wrapper would only add a cork of its own. */
const coalescing = new WeakSet<Writable>();

/**
 * Gathers everything a client library writes to `socket` during one turn of the event loop
 * into one system call. With `noDelay` (which a lone call needs: Nagle's algorithm would hold
 * it ~40 ms for the peer's delayed ACK) every write is a syscall and a TCP segment of its
 * own, and the libraries write once per frame or packet: per call a request, its reply, two
 * acks — under load a third of the process's CPU went to `writev` alone. The first write of
 * a turn corks the socket and a `setImmediate` uncorks it, after the I/O callbacks and
 * microtasks of that turn have added their frames; a lone write still leaves in the same
 * turn, so latency grows by microseconds, not by a timer. Order is kept (one stream), and
 * back-pressure too: a corked socket past its high-water mark makes `write` return false
 * and the library waits for `drain` as before. `end()` flushes what is corked.
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
  socket.write = function coalescedWrite(this: Writable, ...args: Parameters<Writable['write']>): boolean {
    if (!corked && !socket.destroyed) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return (write as (...a: Parameters<Writable['write']>) => boolean).apply(this, args);
  } as Writable['write'];
}
