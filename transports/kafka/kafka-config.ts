import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { z } from 'zod';
import { secretRefSchema, type SecretValue } from '../../src/secrets/index.js';
import type { KafkaClientOptions } from './kafka-options.js';
import { tlsOptionsFromConfig, tlsSchema } from '../shared/tls-schema.js';
import { splitEndpoints, topicRouteFields } from '../shared/topic-route.js';

const count = z.int().min(1);
const brokersSchema = z
  .array(z.string().refine((entry) => splitEndpoints([entry]).length > 0 && splitEndpoints([entry]).every((broker) => broker.includes(':')), 'must be host:port (or a comma-separated list of them)'))
  .min(1)
  .transform(splitEndpoints);

/** SASL authentication: the password is a secret reference. */
const saslSchema = z.strictObject({
  mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
  username: z.string().min(1),
  passwordRef: secretRefSchema,
});

/** What the kafkajs client is given besides brokers and client id. */
export const kafkaClientSchema = z.strictObject({
  /** TLS to the brokers (kafkajs calls it `ssl`). */
  ssl: tlsSchema.optional(),
  sasl: saslSchema.optional(),
});

/** capabilities.yaml `transports.kafka`; KafkaTransportOptions takes the same fields. */
export const kafkaConfigSchema = z.strictObject({
  brokers: brokersSchema,
  clientId: z.string().min(1).optional(),
  partitions: count.optional(),
  replicationFactor: count.optional(),
  maxInflight: count.optional(),
  maxWaitTimeInMs: count.optional(),
  lingerMs: z.int().min(0).optional(),
  commitIntervalMs: z.int().min(0).optional(),
  publishTimeoutMs: count.optional(),
  sessionTimeoutMs: count.optional(),
  heartbeatIntervalMs: count.optional(),
  client: kafkaClientSchema.optional(),
});
export type KafkaTransportConfig = z.infer<typeof kafkaConfigSchema>;
export type KafkaClientConfig = z.infer<typeof kafkaClientSchema>;

/** rpc-peers.yaml `kind: kafka` route: the peer's inbox topic and the brokers it uses (checked against ours). */
export const kafkaRouteSchema = z.strictObject({
  ...topicRouteFields,
  brokers: brokersSchema.optional(),
});
export type KafkaRouteConfig = z.infer<typeof kafkaRouteSchema>;

/** The kafkajs client settings a config's `client` stands for, secrets resolved. */
export async function kafkaClientFromConfig(config: KafkaClientConfig | undefined, resolveSecret: (ref: string) => Promise<SecretValue>): Promise<KafkaClientOptions> {
  if (config === undefined) return {};
  const client: { -readonly [K in keyof KafkaConfig]?: KafkaConfig[K] } = {};
  if (config.ssl === true) client.ssl = true;
  else if (config.ssl !== undefined) {
    const { ca, ...tls } = await tlsOptionsFromConfig(config.ssl, resolveSecret);
    client.ssl = { ...tls, ...(ca === undefined ? {} : { ca: [ca] }) };
  }
  if (config.sasl !== undefined) {
    const { mechanism, username, passwordRef } = config.sasl;
    client.sasl = { mechanism, username, password: (await resolveSecret(passwordRef)).reveal() } as SASLOptions;
  }
  return client;
}
