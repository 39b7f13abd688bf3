import type { RpcTransport } from '../../src/transport.js';
import { amqpTransport, type AmqpTransportOptions } from '../../transports/amqp/index.js';
import { runBroker, runScope } from './run-brokers.js';
import type { TransportSpec } from './transport-spec.js';

/** A test file's share of the run's RabbitMQ. */
export interface RunAmqp {
  readonly url: string;
  /** Starts every exchange and queue name this file declares, so they are its own. */
  readonly prefix: string;
  /** A connected transport on this file's names; `options` may override any setting. */
  transport(options?: Omit<AmqpTransportOptions, 'url'>): Promise<RpcTransport>;
  /** The same, for an agent in a child process. */
  spec(): TransportSpec;
}

/** The run's RabbitMQ, seen through a name prefix of its own (a fresh one on each call). */
export async function runAmqp(): Promise<RunAmqp> {
  const { url } = await runBroker('rabbitmq');
  const prefix = `${runScope()}.`;
  return {
    url,
    prefix,
    async transport(options = {}) {
      const transport = amqpTransport({ url, prefix, ...options });
      await transport.connect();
      return transport;
    },
    spec: () => ({ kind: 'amqp', url, prefix }),
  };
}
