import { z } from 'zod';
import { DEDUPE_STRATEGIES } from '../idempotency/dedupe.js';

/** event-sources.yaml (version 1): how the agent's inbox consumes. */
export const eventSourcesFileSchema = z.strictObject({
  version: z.literal(1),
  sources: z.array(
    z.strictObject({
      id: z.string().min(1),
      type: z.literal('agent-inbox'),
      agentId: z.string().min(1),
      requestsTopic: z.string().min(1).optional(),
      responsesTopic: z.string().min(1).optional(),
      eventsTopic: z.string().min(1).optional(),
      delivery: z.strictObject({ mode: z.literal('at-least-once'), ackStrategy: z.literal('after-dispatch') }).optional(),
      idempotency: z
        .strictObject({
          strategy: z.enum(DEDUPE_STRATEGIES).default('message-id'),
          /** `memory`, or `sqlite` (kept in the agent's data directory). */
          store: z.enum(['memory', 'sqlite']).default('memory'),
          ttlMs: z.int().min(1).optional(),
        })
        .optional(),
      limits: z.strictObject({ concurrency: z.int().min(1).optional(), maxInflight: z.int().min(1).optional() }).optional(),
    }),
  ),
});
export type EventSourcesFile = z.infer<typeof eventSourcesFileSchema>;
