import { z } from 'zod';
import { DEDUPE_STRATEGIES } from '../idempotency/dedupe.js';
import { inboxLimitFields } from './inbox-fields.js';

/**
 * event-sources.yaml (version 1): how the agent's inbox consumes. An agent has one inbox:
 * every source describes it, and sources that set the same thing must agree (see
 * inbox-settings.ts). Topics and limits have their homes elsewhere; here they are aliases.
 */
export const eventSourcesFileSchema = z.strictObject({
  version: z.literal(1).describe('The file format version.'),
  sources: z
    .array(
      z.strictObject({
        id: z.string().min(1).describe('Names the source; unique in the file.'),
        type: z.literal('agent-inbox').describe('The only source type.'),
        agentId: z.string().min(1).describe("Must be agent.yaml's agent id."),
        requestsTopic: z.string().min(1).optional().describe('Alias of capabilities.yaml `topics.requests`.'),
        responsesTopic: z.string().min(1).optional().describe('Alias of capabilities.yaml `topics.responses`.'),
        eventsTopic: z.string().min(1).optional().describe('Alias of capabilities.yaml `topics.events`.'),
        delivery: z
          .strictObject({
            mode: z.literal('at-least-once').describe('The only mode: a message is acknowledged after it was handled or dead-lettered.'),
            ackStrategy: z.literal('after-dispatch').describe('The only strategy.'),
          })
          .optional()
          .describe("States the inbox's delivery, which is fixed; any other value is an error."),
        idempotency: z
          .strictObject({
            strategy: z.enum(DEDUPE_STRATEGIES).default('message-id').describe('`message-id`: same envelope messageId; `transport-natural`: same broker delivery identity.'),
            store: z.enum(['memory', 'sqlite']).default('memory').describe('`memory`, or `sqlite` (dedupe.db in the data directory, kept across restarts).'),
            ttlMs: z.int().min(1).optional().describe('How long a processed message is remembered. Default 3,600,000.'),
          })
          .optional()
          .describe('Dedupe of redeliveries.'),
        limits: z.strictObject(inboxLimitFields).optional().describe('Alias of agent.yaml `limits.concurrency` and `limits.maxInflight`.'),
      }),
    )
    .describe("Descriptions of the agent's inbox; several must agree on what they both set."),
});
export type EventSourcesFile = z.infer<typeof eventSourcesFileSchema>;
export type EventSourceConfig = EventSourcesFile['sources'][number];
