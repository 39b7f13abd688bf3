import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml } from '../../src/yaml/load-yaml.js';
import { transportsConfigSchema } from '../../src/config/transports-config.js';
import { silentLogger } from '../../src/logger.js';
import { noMetrics } from '../../src/observability/metrics.js';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import { checkTransportPlugins } from '../../src/transport-plugin.js';
import { configKinds } from '../../src/config/config-kinds.js';
import { checkGatewayPlugins } from '../../src/gateway-plugin.js';
import { builtinGateways } from '../../src/gateways.js';
import { httpGatewayPlugin } from '../../src/remote-nodes/http-gateway/index.js';
import { kafkaOptionsFromConfig, type KafkaTransportConfig } from '../../transports/kafka/index.js';
import { memoryTransportPlugin } from '../../transports/memory/index.js';
import { natsOptionsFromConfig, type NatsTransportConfig } from '../../transports/nats/index.js';
import { builtinTransports } from '../../transports/plugins.js';
import { Collector } from '../support/collector.js';

const dir = mkdtempSync(join(tmpdir(), 'transport-plugins-'));
for (const [file, text] of Object.entries({ 'ca.pem': 'CA PEM', 'client.pem': 'CLIENT PEM', 'client.key': 'CLIENT KEY' })) writeFileSync(join(dir, file), text);
const secrets = createSecretResolver({ env: { NATS_PASS: 'nats-secret', KAFKA_PASS: 'kafka-secret' } });
const context = { agentId: 'billing', clientId: 'billing', logger: silentLogger, metrics: noMetrics, resolveSecret: (ref: string) => secrets.resolve(ref, dir), shared: new Map<string, unknown>() };
const file = join(dir, 'capabilities.yaml');

/** A capabilities.yaml `transports:` section as the daemon reads it. */
function transportsOf(yaml: string): Record<string, unknown> {
  return parseYaml(file, yaml, z.object({ transports: transportsConfigSchema(builtinTransports) })).value.transports;
}
const errorOf = (yaml: string): string => {
  try {
    transportsOf(yaml);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('transport plug-ins', () => {
  it('transports - the built-in list has one plug-in per kind, each kind a replyTo scheme', () => {
    expect(checkTransportPlugins(builtinTransports).map((plugin) => plugin.kind)).toEqual(['memory', 'nats', 'kafka', 'amqp', 'mqtt', 'sqs']);
    expect(() => checkTransportPlugins([memoryTransportPlugin, memoryTransportPlugin])).toThrow(/two transport plug-ins of kind memory/);
    expect(() => checkTransportPlugins([{ ...memoryTransportPlugin, kind: 'Mem' }])).toThrow(TypeError);
  });

  it('gateways - the built-in list has one plug-in per kind; a gateway of a transport’s kind is refused', () => {
    expect(checkGatewayPlugins(builtinGateways).map((plugin) => plugin.kind)).toEqual(['http', 'a2a']);
    expect(() => checkGatewayPlugins([httpGatewayPlugin, httpGatewayPlugin])).toThrow(/two gateway plug-ins of kind http/);
    expect(() => configKinds({ transports: builtinTransports, gateways: [{ ...httpGatewayPlugin, kind: 'memory' }] })).toThrow(/a transport plug-in and a gateway plug-in of kind memory/);
  });

  it('transports - importing the plug-in list loads no broker client package', () => {
    const script = "import('./transports/plugins.ts').then(() => console.log(Object.keys(require.cache).filter((k) => /node_modules[\\\\/](nats|kafkajs|mqtt|rabbitmq-client|@aws-sdk[\\\\/]client-sqs)[\\\\/]/.test(k)).length))";
    const loaded = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8' });
    expect(loaded.trim()).toBe('0');
  });

  it('transports - an unknown kind, an inline secret and a half credential are refused naming the field', () => {
    expect(errorOf('transports: { memory: {}, stomp: {} }')).toMatch(/capabilities\.yaml:1: transports: Unrecognized key: "stomp"/);
    expect(errorOf('transports: {}')).toMatch(/at least one transport \(memory, nats, kafka, amqp, mqtt, sqs\) is required/);
    expect(errorOf('transports:\n  nats: { servers: nats://n:4222, connection: { user: u, passRef: hunter2 } }')).toMatch(
      /transports\.nats\.connection\.passRef: a secret field must be a secret reference .*; inline secrets are refused/,
    );
    expect(errorOf('transports:\n  nats: { servers: nats://n:4222, connection: { user: u, pass: hunter2 } }')).toMatch(/transports\.nats\.connection: Unrecognized key: "pass"/);
    expect(errorOf('transports:\n  sqs: { endpoint: "http://q:9324", credentials: { accessKeyId: AKIA, secretAccessKeyRef: hunter2 } }')).toMatch(
      /transports\.sqs\.credentials\.secretAccessKeyRef: a secret field must be a secret reference .*; inline secrets are refused/,
    );
    expect(errorOf('transports:\n  nats: { servers: nats://n:4222, connection: { user: u } }')).toMatch(/transports\.nats\.connection\.passRef: user and passRef go together/);
    expect(errorOf('transports:\n  kafka: { brokers: [k:9092], client: { sasl: { mechanism: plain, username: u, passwordRef: "${env:KAFKA_PASS}", password: hunter2 } } }')).toMatch(/transports\.kafka\.client\.sasl: Unrecognized key: "password"/);
    expect(errorOf('transports:\n  kafka: { brokers: [k:9092], client: { ssl: { certRef: "file:client.pem" } } }')).toMatch(/transports\.kafka\.client\.ssl\.keyRef: certRef and keyRef go together/);
  });
});

describe('transport plug-ins - nats', () => {
  it('nats plug-in - a YAML config maps to the transport options, secrets resolved', async () => {
    const { nats } = transportsOf(`
transports:
  nats:
    servers: [tls://n1:4222, tls://n2:4222]
    subjectPrefix: prod.
    durable: { maxDeliver: 4, ackWaitMs: 5000, maxAgeMs: 3600000, storage: memory }
    maxInflight: 64
    maxPending: 1000
    connectTimeoutMs: 2000
    connection:
      name: billing
      tls: { caRef: "file:ca.pem", certRef: "file:client.pem", keyRef: "file:client.key", servername: nats.internal, rejectUnauthorized: true }
      user: billing
      passRef: \${env:NATS_PASS}
`) as { nats: NatsTransportConfig };
    const options = await natsOptionsFromConfig(nats, context);
    expect(options).toMatchObject({
      servers: ['tls://n1:4222', 'tls://n2:4222'],
      subjectPrefix: 'prod.',
      durable: { maxDeliver: 4, ackWaitMs: 5000, maxAgeMs: 3_600_000, storage: 'memory' },
      maxInflight: 64,
      maxPending: 1000,
      connectTimeoutMs: 2000,
      connection: { name: 'billing', user: 'billing', pass: 'nats-secret', tls: { ca: 'CA PEM', cert: 'CLIENT PEM', key: 'CLIENT KEY', servername: 'nats.internal', rejectUnauthorized: true } },
      metrics: noMetrics,
    });
  });

  it('nats plug-in - a token, or an nkey seed turned into an authenticator', async () => {
    const { nkeys } = await import('nats');
    const seed = Buffer.from(nkeys.createUser().getSeed()).toString();
    const withToken = await natsOptionsFromConfig({ servers: 'nats://n:4222', connection: { tokenRef: '${env:NATS_PASS}', tls: true } }, context);
    expect(withToken.connection).toEqual({ token: 'nats-secret', tls: {} });
    const seedSecrets = createSecretResolver({ env: { SEED: seed } });
    const withSeed = await natsOptionsFromConfig({ servers: 'nats://n:4222', connection: { nkeySeedRef: '${env:SEED}' } }, { ...context, resolveSecret: (ref) => seedSecrets.resolve(ref) });
    expect(typeof withSeed.connection?.authenticator).toBe('function');
  });
});

describe('transport plug-ins - kafka', () => {
  it('kafka plug-in - a YAML config maps to the transport options, secrets resolved', async () => {
    const { kafka } = transportsOf(`
transports:
  kafka:
    brokers: [k1:9093, k2:9093]
    partitions: 6
    replicationFactor: 3
    maxInflight: 32
    maxWaitTimeInMs: 50
    lingerMs: 5
    client:
      ssl: { caRef: "file:ca.pem", certRef: "file:client.pem", keyRef: "file:client.key", servername: kafka.internal, rejectUnauthorized: true }
      sasl: { mechanism: scram-sha-512, username: billing, passwordRef: "\${env:KAFKA_PASS}" }
`) as { kafka: KafkaTransportConfig };
    const options = await kafkaOptionsFromConfig(kafka, context);
    expect(options).toMatchObject({
      brokers: ['k1:9093', 'k2:9093'],
      clientId: 'billing',
      partitions: 6,
      replicationFactor: 3,
      maxInflight: 32,
      maxWaitTimeInMs: 50,
      lingerMs: 5,
      client: {
        ssl: { ca: ['CA PEM'], cert: 'CLIENT PEM', key: 'CLIENT KEY', servername: 'kafka.internal', rejectUnauthorized: true },
        sasl: { mechanism: 'scram-sha-512', username: 'billing', password: 'kafka-secret' },
      },
    });
    expect((await kafkaOptionsFromConfig({ brokers: ['k:9092'], clientId: 'own', client: { ssl: true } }, context)).client).toEqual({ ssl: true });
  });
});

describe('transport plug-ins - memory', () => {
  it('memory plug-in - the agents of one process share one bus through the shared state', async () => {
    const shared = new Map<string, unknown>();
    const [a, b] = await Promise.all([memoryTransportPlugin.create({}, { ...context, shared }), memoryTransportPlugin.create({}, { ...context, shared })]);
    const got = new Collector({ autoAck: true });
    await b.subscribe('t', got.handler);
    await a.publish('t', { body: Buffer.from('across') });
    expect((await got.waitFor(1)).map((d) => Buffer.from(d.body).toString())).toEqual(['across']);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('transport plug-ins - tls', () => {
  it('tls - NATS adds handshakeFirst to the shared TLS settings and keeps their rules; Kafka has no such field', async () => {
    const { nats } = transportsOf('transports:\n  nats: { servers: tls://n:4222, connection: { tls: { caRef: "file:ca.pem", handshakeFirst: true } } }') as { nats: NatsTransportConfig };
    expect((await natsOptionsFromConfig(nats, context)).connection).toEqual({ tls: { ca: 'CA PEM', handshakeFirst: true } });
    expect(errorOf('transports:\n  nats: { servers: tls://n:4222, connection: { tls: { keyRef: "file:client.key" } } }')).toMatch(/transports\.nats\.connection\.tls\.keyRef: certRef and keyRef go together/);
    expect(errorOf('transports:\n  kafka: { brokers: [k:9093], client: { ssl: { handshakeFirst: true } } }')).toMatch(/transports\.kafka\.client\.ssl/);
  });
});
