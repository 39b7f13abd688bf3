import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BROKER_KINDS, type BrokerAddresses, type BrokerKind, type SharedBrokers } from './shared-brokers.js';

/**
 * Shared brokers over loopback HTTP, for clients in other processes (a test runner's
 * workers): `GET /<kind>` answers with the address once the server is up, starting it on
 * the first request, or with `{ error }` and status 500 when it cannot start. Servers
 * belong to the process that runs the service, so they outlive the workers that asked.
 */
export interface BrokerService {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveBrokers(brokers: SharedBrokers): Promise<BrokerService> {
  const server = createServer((request, response) => {
    const kind = request.url?.slice(1) as BrokerKind;
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET' || !BROKER_KINDS.includes(kind)) return reply(404, { error: `unknown broker ${String(request.url)}; ask for /${BROKER_KINDS.join(', /')}` });
    brokers.get(kind).then(
      (address) => reply(200, address),
      (error: unknown) => reply(500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // A first Kafka start may fetch its jars for minutes: no request timeout.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Asks the service at `serviceUrl` for the shared broker of `kind`; throws the service's
 * reason when it cannot start. (node:http rather than fetch: fetch gives up on an answer
 * after 5 minutes, and a first Kafka start with an empty jar cache may take longer.)
 */
export function askBrokerService<K extends BrokerKind>(serviceUrl: string, kind: K): Promise<BrokerAddresses[K]> {
  return new Promise((resolve, reject) => {
    const request = get(`${serviceUrl}/${kind}`, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          const body = JSON.parse(text) as BrokerAddresses[K] | { error: string };
          if (response.statusCode === 200 && !('error' in body)) return resolve(body);
          reject(new Error(`shared ${kind}: ${'error' in body ? body.error : `HTTP ${String(response.statusCode)}`}`));
        } catch (error) {
          reject(new Error(`shared ${kind}: unreadable answer from ${serviceUrl}`, { cause: error }));
        }
      });
    });
    request.once('error', (error) => reject(new Error(`shared ${kind}: broker service at ${serviceUrl} unreachable: ${error.message}`, { cause: error })));
  });
}
