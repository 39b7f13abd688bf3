import { z } from 'zod';
import { secretRefSchema } from '../../src/secrets/index.js';
import { topicRouteFields } from '../shared/topic-route.js';

const count = z.int().min(1);
const amqpUrl = z.string().regex(/^amqps?:\/\/[^\s]+$/, 'must be an amqp:// or amqps:// URL');

/** capabilities.yaml `transports.amqp`; AmqpTransportOptions takes the same fields. */
export const amqpConfigSchema = z.strictObject({
  url: amqpUrl,
  /** Replaces the URL's password, so the URL itself holds no secret. */
  passwordRef: secretRefSchema.optional(),
  prefix: z.string().regex(/^[A-Za-z0-9_.:-]*$/, 'letters, digits and _ . : - only').optional(),
  maxInflight: count.optional(),
  maxDeliver: count.optional(),
  connectTimeoutMs: count.optional(),
  publishTimeoutMs: count.optional(),
});
export type AmqpTransportConfig = z.infer<typeof amqpConfigSchema>;

/** rpc-peers.yaml `kind: amqp` route: the peer's inbox topic (its queue) and the broker it uses (checked against ours). */
export const amqpRouteSchema = z.strictObject({
  ...topicRouteFields,
  url: amqpUrl.optional(),
});
export type AmqpRouteConfig = z.infer<typeof amqpRouteSchema>;
