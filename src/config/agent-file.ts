import { z } from 'zod';
import { receiverAuthSchema } from './auth-config.js';

// A port may come from `${env:PORT}`, which expands to a string.
const portSchema = z.union([z.int(), z.string().regex(/^\d+$/, 'must be a port number').transform(Number)]).pipe(z.int().min(0).max(65535));

const permissionList = z.array(z.string().min(1)).optional();

/** agent.yaml (version 1): who the agent is, what it may do, and how it runs. */
export const agentFileSchema = z.strictObject({
  version: z.literal(1),
  agent: z.strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be an agent id: [A-Za-z0-9][A-Za-z0-9._-]{0,127}'),
    tenantId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/).optional(),
    /** Stable per replica (pod name); replies come back to it. */
    instanceId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_-]').optional(),
  }),
  /** Tools the agent's handlers may use by default (e.g. RequestAgent). */
  tools: z.strictObject({ defaults: z.array(z.string().min(1)).default([]) }).optional(),
  permissions: z.strictObject({ allow: permissionList, deny: permissionList }).optional(),
  rpc: z.strictObject({ auth: receiverAuthSchema.optional() }).optional(),
  /** capability → module path (relative to this file) whose default export is the handler. */
  handlers: z.record(z.string(), z.string().min(1)).default({}),
  limits: z
    .strictObject({
      concurrency: z.int().min(1).optional(),
      maxInflight: z.int().min(1).optional(),
      pendingCapacity: z.int().min(1).optional(),
      maxBytes: z.int().min(1).optional(),
      maxDepth: z.int().min(1).optional(),
      maxDeliveryAttempts: z.int().min(1).optional(),
      retryDelayMs: z.int().min(1).optional(),
      drainTimeoutMs: z.int().min(1).optional(),
    })
    .optional(),
  /** Runaway-guard limits (docs/guard.md). */
  guard: z
    .strictObject({
      maxDepth: z.int().min(1).optional(),
      maxAgents: z.int().min(1).optional(),
      maxFlowMs: z.int().min(1).optional(),
      maxCallsPerMinute: z.int().min(1).optional(),
      maxCallsPerFlow: z.int().min(1).optional(),
    })
    .optional(),
  log: z.strictObject({ level: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info') }).optional(),
  http: z.strictObject({ port: portSchema.default(9464), host: z.string().default('127.0.0.1') }).optional(),
  dataDir: z.string().default('./data'),
});
export type AgentFile = z.infer<typeof agentFileSchema>;
