import { natsUrlFromEnv, startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import type { RpcTransport } from '../../src/transport.js';
import { natsTransport, type NatsTransportOptions } from '../../transports/nats/index.js';

/** A NATS server for one test file: the one in NATS_URL, or our own with JetStream. */
export class NatsTestServer {
  private server: NatsServerHandle | undefined;
  url = '';

  async start(): Promise<void> {
    const fromEnv = natsUrlFromEnv();
    if (fromEnv) {
      this.url = fromEnv;
      return;
    }
    this.server = await startNatsServer({ jetstream: true });
    this.url = this.server.url;
  }

  /** The harness's handle, for fault tests; undefined when NATS_URL points elsewhere. */
  get handle(): NatsServerHandle | undefined {
    return this.server;
  }

  async transport(options: Omit<NatsTransportOptions, 'servers'> = {}): Promise<RpcTransport> {
    const transport = natsTransport({ servers: this.url, ...options });
    await transport.connect();
    return transport;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }
}
