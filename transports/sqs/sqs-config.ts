import { z } from 'zod';
import { alias, seconds } from '../../src/yaml/index.js';
import { secretRefSchema, type SecretValue } from '../../src/secrets/index.js';
import { topicRouteFields } from '../shared/topic-route.js';
import type { SqsCredentials } from './sqs-options.js';

const count = z.int().min(1);
const wholeSeconds = z.int().min(0).multipleOf(1_000, 'must be whole seconds (a multiple of 1,000 ms): SQS counts in seconds');

/** Static credentials: the key id in the open, the secret (and a session token) by reference. */
const credentialsSchema = z.strictObject({
  accessKeyId: z.string().min(1),
  secretAccessKeyRef: secretRefSchema,
  sessionTokenRef: secretRefSchema.optional(),
});

/** capabilities.yaml `transports.sqs`; SqsTransportOptions takes the same fields. */
export const sqsConfigSchema = z.strictObject({
  /** An SQS-compatible endpoint (ElasticMQ, LocalStack); omitted: AWS's endpoint for the region. */
  endpoint: z.url().optional(),
  region: z.string().min(1).optional(),
  /** Omitted: the AWS SDK's default chain (environment, shared files, instance role). */
  credentials: credentialsSchema.optional(),
  /** Prepended to every queue name (e.g. `prod-`). */
  queuePrefix: z.string().regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, - and _ only').optional(),
  fifo: z.boolean().optional(),
  /** SQS counts these in whole seconds; `waitTimeSeconds` and `visibilityTimeoutSeconds` (AWS's names, in seconds) are aliases. */
  waitTimeMs: alias(wholeSeconds.max(20_000).optional(), seconds('waitTimeSeconds')),
  visibilityTimeoutMs: alias(wholeSeconds.max(43_200_000).optional(), seconds('visibilityTimeoutSeconds')),
  maxReceiveCount: z.int().min(1).max(1000).optional(),
  maxInflight: count.optional(),
});
export type SqsTransportConfig = z.infer<typeof sqsConfigSchema>;
export type SqsCredentialsConfig = z.infer<typeof credentialsSchema>;

/** rpc-peers.yaml `kind: sqs` route: the peer's inbox topic and the endpoint it uses (checked against ours). */
export const sqsRouteSchema = z.strictObject({
  ...topicRouteFields,
  endpoint: z.url().optional(),
});
export type SqsRouteConfig = z.infer<typeof sqsRouteSchema>;

/** The credentials a config's `credentials` stands for, secrets resolved. */
export async function sqsCredentialsFromConfig(config: SqsCredentialsConfig | undefined, resolveSecret: (ref: string) => Promise<SecretValue>): Promise<SqsCredentials | undefined> {
  if (config === undefined) return undefined;
  const secretAccessKey = (await resolveSecret(config.secretAccessKeyRef)).reveal();
  const sessionToken = config.sessionTokenRef === undefined ? undefined : (await resolveSecret(config.sessionTokenRef)).reveal();
  return { accessKeyId: config.accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
}
