import { z } from 'zod';
import { DEDUPE_STRATEGIES } from '../idempotency/index.js';
import { inboxLimitFields } from './inbox-fields.js';

const sourceType = z.literal('agent-inbox').describe('The only source type.');

/** What a source says about the inbox: the same fields in both forms of the file. */
const sourceFields = {
  id: z.string().min(1).describe('Names the source; unique in the file.'),
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
      leaseMs: z
        .int()
        .min(1)
        .optional()
        .describe("How long a running handler's claim holds off redeliveries when no live run answers them (another replica died). Default 300,000."),
    })
    .optional()
    .describe('Dedupe of redeliveries.'),
  limits: z.strictObject(inboxLimitFields).optional().describe('Alias of agent.yaml `limits.concurrency` and `limits.maxInflight`.'),
};
const { id, agentId, ...settings } = sourceFields;

/** The map form (`version: 1`, `sources:`), where each source is flat. */
const mapForm = z.strictObject({
  version: z.literal(1).describe('The file format version.'),
  sources: z.array(z.strictObject({ id, type: sourceType, agentId, ...settings })).describe("Descriptions of the agent's inbox; several must agree on what they both set."),
});

/** The design documents' form: the file is a list of `{ type: agent-inbox, config: { id, agentId, ... } }`. */
export const eventSourcesListSchema = z.array(z.strictObject({ type: sourceType, config: z.strictObject(sourceFields).describe('The source, with the fields of the map form.') }));

/**
 * event-sources.yaml: how the agent's inbox consumes. An agent has one inbox: every source
 * describes it, and sources that set the same thing must agree (see inbox-settings.ts).
 * Topics and limits have their homes elsewhere; here they are aliases. Either form loads
 * to `sources`; `listed` says which was written, for the paths of errors (sourcePath).
 */
export const eventSourcesFileSchema = z.union([
  mapForm.transform((file) => ({ ...file, listed: false })),
  eventSourcesListSchema.transform((list) => ({ version: 1 as const, sources: list.map(({ type, config }) => ({ ...config, type })), listed: true })),
]);
export type EventSourcesFile = z.infer<typeof eventSourcesFileSchema>;
export type EventSourceConfig = EventSourcesFile['sources'][number];

/** Where source `index` was written: `sources[i]` in the map form, `[i].config` in the list form. */
export function sourcePath(file: EventSourcesFile, index: number): PropertyKey[] {
  return file.listed ? [index, 'config'] : ['sources', index];
}
