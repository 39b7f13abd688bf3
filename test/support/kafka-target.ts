import { kafkaBrokersFromEnv, startKafkaServer, type KafkaServerHandle } from '../../tools/brokers/index.js';
import type { RpcTransport } from '../../src/transport.js';
import { kafkaTransport, type KafkaTransportOptions } from '../../transports/kafka/index.js';

/** A Kafka broker for one test file: the one in KAFKA_BROKERS, or our own (KRaft, free ports). */
export class KafkaTestServer {
  private server: KafkaServerHandle | undefined;
  brokers: string[] = [];

  async start(): Promise<void> {
    const fromEnv = kafkaBrokersFromEnv();
    if (fromEnv) {
      this.brokers = fromEnv;
      return;
    }
    this.server = await startKafkaServer();
    this.brokers = this.server.brokers;
  }

  get handle(): KafkaServerHandle | undefined {
    return this.server;
  }

  async transport(options: Omit<KafkaTransportOptions, 'brokers'> = {}): Promise<RpcTransport> {
    const transport = kafkaTransport({ brokers: this.brokers, ...options });
    await transport.connect();
    return transport;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }
}
