import { z } from 'zod';
import { AGENT_URI_RE, CAPABILITY_RE, isAgentId } from '../envelope/index.js';
import type { ConfigKind } from './config-kinds.js';
import { topicFields } from './inbox-fields.js';
import { transportsConfigSchema, type TransportsConfig } from './transports-config.js';
import { fromTransportsList, transportsListSchema, type ListedTopics } from './transports-list.js';

/** A JSON Schema document (validated as a schema when the agent starts). */
const jsonSchema = z.record(z.string(), z.unknown());

/**
 * capabilities.yaml (version 1): this agent's RPC surface; `transports` is checked against
 * the loaded plug-ins. `transports` is a map by kind, or (as the design documents write it)
 * a list of `{kind, ...}` entries; either loads to the map, and a list's `topics` /
 * `subjects` are kept as `listedTopics`, to be settled with the file's `topics`.
 */
export function capabilitiesFileSchema(transports: readonly ConfigKind[]) {
  return z
    .strictObject({
      version: z.literal(1).describe('The file format version.'),
      agent: z
        .string()
        .refine((id) => AGENT_URI_RE.test(id) || isAgentId(id), 'must be agent://<id> or a bare agent id')
        .optional()
        .describe("The agent these are the capabilities of (`agent://<id>`), as the design documents write it; must be agent.yaml's id."),
      transports: z
        .union([transportsConfigSchema(transports), transportsListSchema(transports)])
        .describe(
          'Where this agent connects: one block per transport kind (`nats: {...}`), or a list of `{ kind, <its fields>, topics | subjects: {requests, responses, events} }` (the design documents\' form; its topics are the same settings as `topics`).',
        ),
    topics: z
      .strictObject(topicFields)
      .optional()
      .describe("The agent's topics; the one home of topic names (event-sources.yaml `requestsTopic`, `responsesTopic`, `eventsTopic` are aliases)."),
    capabilities: z
      .array(
        z.strictObject({
          name: z.string().regex(CAPABILITY_RE, 'must be [A-Za-z0-9$][A-Za-z0-9._:/-]{0,127}').describe('The capability name callers use.'),
          description: z.string().default('').describe('What it does; published with `$capabilities` and in generated clients.'),
          timeoutMs: z.int().min(1).optional().describe('How long the capability takes at most; published with `$capabilities` for callers, not enforced.'),
          idempotent: z.boolean().default(false).describe('Whether calling twice is harmless; published with `$capabilities`, not enforced.'),
          since: z.string().optional().describe('The version that introduced it; published with `$capabilities`.'),
          inputSchema: jsonSchema.optional().describe('JSON Schema (draft 2020-12) of the payload; enforced before dispatch.'),
          outputSchema: jsonSchema.optional().describe('JSON Schema of the result; a result that breaks it reaches the caller as EAGENTRPC_SCHEMA_VIOLATION.'),
        }),
      )
      .describe('The capabilities this agent serves.'),
    })
    .transform((file): typeof file & { transports: TransportsConfig; listedTopics: readonly ListedTopics[] } => {
      if (!Array.isArray(file.transports)) return { ...file, transports: file.transports, listedTopics: [] };
      return { ...file, ...fromTransportsList(file.transports, transports) };
    });
}
export type CapabilitiesFile = z.infer<ReturnType<typeof capabilitiesFileSchema>>;
export type CapabilityConfig = CapabilitiesFile['capabilities'][number];
