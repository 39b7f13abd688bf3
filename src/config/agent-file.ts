import { z } from 'zod';
import { toolPolicySchema } from '../agent/agent-tools.js';
import { ROLES } from '../server/roles.js';
import { receiverAuthSchema } from './auth-config.js';
import { remoteNodesConfigSchema, remoteNodeStoreConfigSchema } from './remote-nodes-config.js';

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
  tools: z.strictObject({ defaults: z.array(z.string().min(1)).default([]), policy: toolPolicySchema.default({}) }).optional(),
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
      /** Whole-flow counts shared between processes (docs/guard.md). */
      store: z.strictObject({ kind: z.literal('redis'), url: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'), keyPrefix: z.string().min(1).optional() }).optional(),
    })
    .optional(),
  log: z.strictObject({ level: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info') }).optional(),
  http: z.strictObject({ port: portSchema.default(9464), host: z.string().default('127.0.0.1') }).optional(),
  /** Bearer tokens of the node's HTTP API (sessions, remote nodes); without any, every /api call is refused. */
  api: z
    .strictObject({
      tokens: z
        .array(
          z.strictObject({
            user: z.string().regex(/^[A-Za-z0-9._@-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9._@-]'),
            role: z.enum(ROLES),
            /** A secret reference (`${env:NAME}`, `file:`, `secret://`, `vault:`), never the token itself. */
            tokenRef: z.string().min(1),
          }),
        )
        .default([]),
    })
    .optional(),
  /** Remote sessions served by this node (docs/remote-nodes.md). */
  session: z
    .strictObject({
      /** The capability a session created with a plain `message` calls, with payload `{message}`. */
      capability: z.string().min(1).optional(),
      max_per_user: z.int().min(1).default(100),
    })
    .optional(),
  /** Other nodes' session APIs this agent may call (docs/remote-nodes.md). */
  remote_nodes: remoteNodesConfigSchema.optional(),
  /** Enables the node store managed over /api/v1/remote-nodes; its credentials are encrypted with this key. */
  remote_node_store: remoteNodeStoreConfigSchema.optional(),
  dataDir: z.string().default('./data'),
});
export type AgentFile = z.infer<typeof agentFileSchema>;
