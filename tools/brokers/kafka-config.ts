import { randomBytes } from 'node:crypto';

export interface KafkaPorts {
  readonly broker: number;
  readonly controller: number;
  /** A SASL_PLAINTEXT listener (PLAIN), when the broker is started with SASL users. */
  readonly sasl?: number;
}

/** SASL/PLAIN users of the SASL listener: user name → password. */
export type KafkaSaslUsers = Readonly<Record<string, string>>;

/** The extra listener and its JAAS users; the brokers still talk to each other in PLAINTEXT. */
function saslSettings(users: KafkaSaslUsers): Record<string, string> {
  const entries = Object.entries(users).map(([user, password]) => `user_${user}="${password.replace(/["\\]/g, '\\$&')}"`);
  return {
    'sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required ${entries.join(' ')};`,
  };
}

/**
 * A KRaft cluster id: 16 random bytes, base64url without padding (what
 * `StorageTool random-uuid` prints). Generated here to save a JVM start.
 */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    // Kafka refuses ids that look like command-line flags.
    if (!id.startsWith('-')) return id;
  }
}

/** server.properties for one node that is both broker and KRaft controller. */
export function serverProperties(ports: KafkaPorts, logDir: string, extra: Readonly<Record<string, string>> = {}, saslUsers?: KafkaSaslUsers): string {
  const sasl = ports.sasl !== undefined && saslUsers !== undefined ? ports.sasl : undefined;
  const saslListener = sasl === undefined ? '' : `,SASL_PLAINTEXT://127.0.0.1:${sasl}`;
  const settings: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${ports.controller}`,
    listeners: `PLAINTEXT://127.0.0.1:${ports.broker},CONTROLLER://127.0.0.1:${ports.controller}${saslListener}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${ports.broker}${saslListener}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': `PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${sasl === undefined ? '' : ',SASL_PLAINTEXT:SASL_PLAINTEXT'}`,
    'log.dirs': logDir,
    // One node: internal topics cannot have more replicas than that.
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    // Tests create their topics explicitly and expect consumers to join at once.
    'auto.create.topics.enable': 'false',
    'num.partitions': '1',
    'group.initial.rebalance.delay.ms': '0',
    // After a crash the controller keeps the dead broker's registration until its
    // session expires (default 9 s, then registration retries back off to 4.5 s), so a
    // restart after kill() took ~16 s. A shorter session makes it ~3 s.
    'broker.heartbeat.interval.ms': '500',
    'broker.session.timeout.ms': '3000',
    // Fewer partitions and threads: the first consumer group comes up faster and a
    // 2-core machine is not flooded with idle threads.
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.num.partitions': '1',
    'num.network.threads': '2',
    'num.io.threads': '2',
    'background.threads': '2',
    'num.recovery.threads.per.data.dir': '1',
    'log.cleaner.threads': '1',
    // The default 128 MiB dedupe buffer would take a quarter of the small heap.
    'log.cleaner.dedupe.buffer.size': '8388608',
    ...(sasl === undefined ? {} : saslSettings(saslUsers!)),
    ...extra,
  };
  const lines = Object.entries(settings).map(([key, value]) => `${key}=${value}`);
  return `# Generated for a single-node test broker.\n${lines.join('\n')}\n`;
}

/** log4j 1.x configuration: everything to stdout, which is redirected to server.log. */
export function log4jProperties(): string {
  return [
    'log4j.rootLogger=INFO, stdout',
    'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
    'log4j.logger.kafka.request.logger=WARN',
    '',
  ].join('\n');
}
