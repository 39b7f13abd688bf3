import { z } from 'zod';

/**
 * Where this agent connects, per transport kind (capabilities.yaml `transports`). The
 * values are the transports' own options; `${env:NAME}` works in any string.
 */
export const transportsConfigSchema = z
  .strictObject({
    memory: z.strictObject({}).optional(),
    nats: z
      .strictObject({
        servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
        subjectPrefix: z.string().optional(),
        durable: z.union([z.boolean(), z.strictObject({ maxDeliver: z.int().min(1).optional(), ackWaitMs: z.int().min(1).optional(), storage: z.enum(['file', 'memory']).optional() })]).optional(),
        maxInflight: z.int().min(1).optional(),
        connectTimeoutMs: z.int().min(1).optional(),
      })
      .optional(),
    kafka: z
      .strictObject({
        brokers: z.array(z.string().min(1)).min(1),
        clientId: z.string().min(1).optional(),
        partitions: z.int().min(1).optional(),
        replicationFactor: z.int().min(1).optional(),
        maxInflight: z.int().min(1).optional(),
      })
      .optional(),
  })
  .refine((value) => Object.values(value).some((v) => v !== undefined), 'at least one transport (memory, nats or kafka) is required');
export type TransportsConfig = z.infer<typeof transportsConfigSchema>;
