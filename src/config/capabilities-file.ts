import { z } from 'zod';
import { CAPABILITY_RE } from '../envelope/schema.js';
import type { TransportPlugin } from '../transport-plugin.js';
import { transportsConfigSchema } from './transports-config.js';

/** A JSON Schema document (validated as a schema when the agent starts). */
const jsonSchema = z.record(z.string(), z.unknown());

/** capabilities.yaml (version 1): this agent's RPC surface; `transports` is checked against the loaded plug-ins. */
export function capabilitiesFileSchema(transports: readonly TransportPlugin[]) {
  return z.strictObject({
    version: z.literal(1),
    transports: transportsConfigSchema(transports),
    topics: z.strictObject({ requests: z.string().min(1).optional(), responses: z.string().min(1).optional(), events: z.string().min(1).optional() }).optional(),
    capabilities: z.array(
      z.strictObject({
        name: z.string().regex(CAPABILITY_RE, 'must be [A-Za-z0-9$][A-Za-z0-9._:/-]{0,127}'),
        description: z.string().default(''),
        timeoutMs: z.int().min(1).optional(),
        idempotent: z.boolean().default(false),
        since: z.string().optional(),
        inputSchema: jsonSchema.optional(),
        outputSchema: jsonSchema.optional(),
      }),
    ),
  });
}
export type CapabilitiesFile = z.infer<ReturnType<typeof capabilitiesFileSchema>>;
export type CapabilityConfig = CapabilitiesFile['capabilities'][number];
