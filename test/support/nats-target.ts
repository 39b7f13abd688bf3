import type { RpcTransport } from '../../src/transport.js';
import { natsTransport, type NatsTransportOptions } from '../../transports/nats/index.js';
import { runBroker, runScope } from './run-brokers.js';
import type { TransportSpec } from './transport-spec.js';

/** A test file's share of the run's NATS server (JetStream on). */
export interface RunNats {
  readonly url: string;
  /** Starts every subject this file uses (`s3f9a1c2e.`), so its subjects and JetStream streams are its own. */
  readonly subjectPrefix: string;
  /** `{ servers, subjectPrefix }`: spread into natsTransport options. */
  readonly options: { readonly servers: string; readonly subjectPrefix: string };
  /** A connected transport on this file's subjects; `options` may override any setting. */
  transport(options?: Omit<NatsTransportOptions, 'servers'>): Promise<RpcTransport>;
  /** The same, for an agent in a child process. */
  spec(options?: { readonly durable?: boolean }): TransportSpec;
}

/** The run's NATS, seen through a subject prefix of its own (a fresh one on each call). */
export async function runNats(): Promise<RunNats> {
  const { url } = await runBroker('nats');
  const subjectPrefix = `${runScope()}.`;
  return {
    url,
    subjectPrefix,
    options: { servers: url, subjectPrefix },
    async transport(options = {}) {
      const transport = natsTransport({ servers: url, subjectPrefix, ...options });
      await transport.connect();
      return transport;
    },
    spec: (options = {}) => ({ kind: 'nats', servers: url, subjectPrefix, ...options }),
  };
}
