import { z } from 'zod';

/** agent.yaml `flows`: the flow pages' records, and the fleet's flows topic (docs/observability.md). */
export const flowsConfigSchema = z.strictObject({
  record: z.boolean().default(true).describe("Record this process's agents' calls for /flows. Default true."),
  publish: z.boolean().default(false).describe('Also publish each call record to the flows topic on the broker, for daemons with `view`. Default false.'),
  view: z.boolean().default(false).describe("Subscribe to the flows topic: /flows shows the whole fleet's flows. Default false."),
  topic: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be 1-200 characters of [A-Za-z0-9._-]')
    .default('agents.flows')
    .describe('The flows topic (one per fleet). Default `agents.flows`.'),
  transport: z.string().min(1).optional().describe("The transport kind the flows topic rides on. Default: the agent's first broker transport (not memory or http)."),
  retain: z
    .strictObject({
      flows: z.int().min(1).max(100_000).default(1000).describe('Flows kept; the oldest go first. Default 1,000.'),
      maxAgeMs: z.int().min(1000).default(3_600_000).describe('A flow is dropped this long after its last call. Default 3,600,000 (1 h).'),
      callsPerFlow: z.int().min(1).max(10_000).default(500).describe('Calls kept per flow; further ones are only counted. Default 500.'),
    })
    .prefault({})
    .describe('How much the process keeps in memory.'),
  sampleRatio: z.number().min(0).max(1).default(1).describe('Share of flows recorded and published, picked by correlationId so every daemon keeps the same flows whole. Default 1.'),
});
export type FlowsConfig = z.infer<typeof flowsConfigSchema>;
