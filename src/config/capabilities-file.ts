import { z } from 'zod';
import { CAPABILITY_RE } from '../envelope/schema.js';
import type { TransportPlugin } from '../transport-plugin.js';
import { topicFields } from './inbox-fields.js';
import { transportsConfigSchema } from './transports-config.js';

/** A JSON Schema document (validated as a schema when the agent starts). */
const jsonSchema = z.record(z.string(), z.unknown());

/** capabilities.yaml (version 1): this agent's RPC surface; `transports` is checked against the loaded plug-ins. */
export function capabilitiesFileSchema(transports: readonly TransportPlugin[]) {
  return z.strictObject({
    version: z.literal(1).describe('The file format version.'),
    transports: transportsConfigSchema(transports).describe('Where this agent connects, one block per transport kind.'),
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
  });
}
export type CapabilitiesFile = z.infer<ReturnType<typeof capabilitiesFileSchema>>;
export type CapabilityConfig = CapabilitiesFile['capabilities'][number];
