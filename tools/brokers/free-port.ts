import { createServer, type Server } from 'node:net';

/** Binds an ephemeral loopback port, so the kernel picks one that nobody listens on. */
function listenEphemeral(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Returns `count` distinct free TCP ports on 127.0.0.1.
 * All sockets are held open until every port is known, so one call never returns the
 * same port twice; another process may still take a port before the caller binds it.
 */
export async function freePorts(count: number): Promise<number[]> {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`freePorts: count must be a positive integer, got ${String(count)}`);
  }
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenEphemeral());
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        throw new Error('freePorts: socket has no TCP address');
      }
      return address.port;
    });
  } finally {
    await Promise.all(servers.map(close));
  }
}

/** Returns one free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('freePort: no port allocated');
  return port;
}
