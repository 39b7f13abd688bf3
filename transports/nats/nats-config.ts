import type { ConnectionOptions } from 'nats';
import { z } from 'zod';
import { secretRefSchema, type SecretValue } from '../../src/secrets/index.js';
import type { NatsModule, NatsTransportOptions } from './nats-options.js';
import { tlsOptionsFromConfig, tlsOptionsSchema } from '../shared/tls-schema.js';
import { splitEndpoints, topicRouteFields } from '../shared/topic-route.js';

const count = z.int().min(1);
const serversSchema = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .refine((servers) => splitEndpoints(typeof servers === 'string' ? [servers] : servers).length > 0, 'must name a server')
  // A comma-separated entry (`["${env:NATS_URL}"]` with NATS_URL=nats://a:4222,nats://b:4222) is several servers.
  .transform((servers) => {
    const list = splitEndpoints(typeof servers === 'string' ? [servers] : servers);
    return typeof servers === 'string' && list.length === 1 ? servers : list;
  });

/** JetStream settings of `durable` (see DurableOptions). */
export const natsDurableSchema = z.strictObject({
  maxDeliver: count.optional(),
  ackWaitMs: count.optional(),
  maxAgeMs: count.optional(),
  storage: z.enum(['file', 'memory']).optional(),
});

/** TLS: `true` for the system's CAs, or the shared settings and nats.js's `handshakeFirst` (TLS before the server's greeting). */
const natsTlsSchema = z.union([z.literal(true), tlsOptionsSchema.extend({ handshakeFirst: z.boolean().optional() })]);

/** How the client connects and authenticates: at most one of user/passRef, tokenRef, credsRef, nkeySeedRef. */
export const natsConnectionSchema = z
  .strictObject({
    /** Connection name shown by the server (monitoring). */
    name: z.string().min(1).optional(),
    tls: natsTlsSchema.optional(),
    user: z.string().min(1).optional(),
    passRef: secretRefSchema.optional(),
    tokenRef: secretRefSchema.optional(),
    /** A `.creds` file (user JWT and nkey seed), as `nsc` writes it. */
    credsRef: secretRefSchema.optional(),
    nkeySeedRef: secretRefSchema.optional(),
  })
  .superRefine((connection, ctx) => {
    if ((connection.user === undefined) !== (connection.passRef === undefined)) ctx.addIssue({ code: 'custom', path: [connection.user === undefined ? 'user' : 'passRef'], message: 'user and passRef go together' });
    const ways = (['user', 'tokenRef', 'credsRef', 'nkeySeedRef'] as const).filter((field) => connection[field] !== undefined);
    if (ways.length > 1) ctx.addIssue({ code: 'custom', path: [ways[1]!], message: `one way to authenticate: ${ways.join(' and ')} are both set` });
  });

/** capabilities.yaml `transports.nats`; NatsTransportOptions takes the same fields. */
export const natsConfigSchema = z.strictObject({
  servers: serversSchema,
  subjectPrefix: z.string().optional(),
  durable: z.union([z.boolean(), natsDurableSchema]).optional(),
  maxInflight: count.optional(),
  maxPending: count.optional(),
  connectTimeoutMs: count.optional(),
  connection: natsConnectionSchema.optional(),
});
export type NatsTransportConfig = z.infer<typeof natsConfigSchema>;
export type NatsConnectionConfig = z.infer<typeof natsConnectionSchema>;

/** rpc-peers.yaml `kind: nats` route: the peer's inbox subject and the servers it listens on (checked against ours). */
export const natsRouteSchema = z.strictObject({
  ...topicRouteFields,
  servers: serversSchema.optional(),
});
export type NatsRouteConfig = z.infer<typeof natsRouteSchema>;

type Resolve = (ref: string) => Promise<SecretValue>;

/**
 * The nats.js connection options a config's `connection` stands for, secrets resolved.
 * A creds file or nkey seed needs the nats package to become an authenticator: `load`
 * is only called then.
 */
export async function natsConnectionFromConfig(config: NatsConnectionConfig | undefined, resolveSecret: Resolve, load: () => Promise<NatsModule>): Promise<NonNullable<NatsTransportOptions['connection']>> {
  if (config === undefined) return {};
  const text = async (ref: string | undefined): Promise<string | undefined> => (ref === undefined ? undefined : (await resolveSecret(ref)).reveal());
  const connection: Omit<Partial<ConnectionOptions>, 'servers'> = {};
  if (config.name !== undefined) connection.name = config.name;
  if (config.tls === true) connection.tls = {};
  // servername and rejectUnauthorized reach node's tls.connect: nats.js passes its tls object through.
  else if (config.tls !== undefined) connection.tls = await tlsOptionsFromConfig(config.tls, resolveSecret);
  if (config.user !== undefined) Object.assign(connection, { user: config.user, pass: await text(config.passRef) });
  if (config.tokenRef !== undefined) connection.token = await text(config.tokenRef);
  if (config.credsRef !== undefined) connection.authenticator = (await load()).credsAuthenticator((await resolveSecret(config.credsRef)).revealBytes());
  if (config.nkeySeedRef !== undefined) connection.authenticator = (await load()).nkeyAuthenticator((await resolveSecret(config.nkeySeedRef)).revealBytes());
  return connection;
}
