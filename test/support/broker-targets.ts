import type { RpcTransport } from '../../src/transport.js';
import { runAmqp, type RunAmqp } from './amqp-target.js';
import { runKafka } from './kafka-target.js';
import { runMqtt } from './mqtt-target.js';
import { runNats } from './nats-target.js';
import { runSqs } from './sqs-target.js';

/** One broker transport of the run, for a test that runs the same case on each. */
export interface BrokerTarget {
  readonly name: string;
  /** The transport kind, as DLQ records and metrics name it. */
  readonly kind: string;
  /** The tenant its agents use (Kafka's share of the run's broker is a tenant). */
  readonly tenantId?: string;
  /** A connected transport on this file's names. */
  transport(): Promise<RpcTransport>;
}

/** The six broker transports on the run's brokers: NATS (core and JetStream), Kafka, AMQP, MQTT, SQS. */
export async function brokerTargets(): Promise<{ targets: BrokerTarget[]; amqp: RunAmqp }> {
  const [nats, kafka, amqp, mqtt, sqs] = await Promise.all([runNats(), runKafka(), runAmqp(), runMqtt(), runSqs()]);
  const targets: BrokerTarget[] = [
    { name: 'nats', kind: 'nats', transport: () => nats.transport() },
    { name: 'nats (durable JetStream)', kind: 'nats', transport: () => nats.transport({ durable: { storage: 'memory', ackWaitMs: 5_000 } }) },
    { name: 'kafka', kind: 'kafka', tenantId: kafka.tenantId, transport: () => kafka.transport() },
    { name: 'amqp', kind: 'amqp', transport: () => amqp.transport() },
    { name: 'mqtt', kind: 'mqtt', transport: () => mqtt.transport() },
    { name: 'sqs', kind: 'sqs', transport: () => sqs.transport() },
  ];
  return { targets, amqp };
}
