import { z } from 'zod';
import { ROLES } from '../auth/index.js';
import { tracingConfigSchema } from './tracing-config.js';
import { alias } from '../yaml/index.js';
import { receiverAuthSchema } from './auth-config.js';
import { inboxLimitFields } from './inbox-fields.js';
import { auditConfigSchema, dlqConfigSchema } from './retention-config.js';
import { remoteNodesConfigSchema } from '../remote-nodes/remote-nodes-config.js';
import { checkPlugins, type Plugins } from './plugins.js';

// A port may come from `${env:PORT}`, which expands to a string.
const portSchema = z.union([z.int(), z.string().regex(/^\d+$/, 'must be a port number').transform(Number)]).pipe(z.int().min(0).max(65535));

const permissionList = z.array(z.string().min(1)).optional();

/** agent.yaml (version 1): who the agent is, what it may do, and how it runs. */
export const agentFileSchema = z.strictObject({
  version: z.literal(1).describe('The file format version.'),
  agent: z
    .strictObject({
      id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be an agent id: [A-Za-z0-9][A-Za-z0-9._-]{0,127}').describe('The agent id; the agent is addressed as `agent://<id>`.'),
      tenantId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/).optional().describe('The bus scope: envelopes of another tenant are refused.'),
      instanceId: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_-]')
        .optional()
        .describe(
          "Stable per replica (e.g. the pod name): replies to this replica's calls come back to it, and after a crash its restart takes over the dedupe claims it left. Default: random per start for replies; for claims `<id>@<hostname>:<dataDir>`.",
        ),
    })
    .describe('Who the agent is.'),
  permissions: z
    .strictObject({
      allow: permissionList.describe('Globs over `RequestAgent:<agent-uri>/<capability>` this agent may call.'),
      deny: permissionList.describe('Globs it may not call; deny wins over allow.'),
    })
    .optional()
    .describe('Which peers and capabilities handlers may call. Without it, every call is allowed.'),
  rpc: z
    .strictObject({ auth: receiverAuthSchema.optional().describe('What this agent requires of every envelope it receives (docs/auth.md). Default: internal.') })
    .optional()
    .describe('How envelopes are authenticated.'),
  handlers: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('Capability → its handler: a module path (relative to this file) whose default export, or export named like the capability, is the handler; or an entry with a `type` (a model agent `type: agent`, docs/agents.md; a workflow `type: workflow`, docs/workflows.md; a remote worker `type: remote-worker`, docs/remote-execution.md).'),
  events: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('Capability → the handler of the events sent to it (docs/events.md), in the forms `handlers` takes; a capability may have a request handler, an event handler, or both.'),
  limits: z
    .strictObject({
      ...inboxLimitFields,
      pendingCapacity: z.int().min(1).optional().describe('Calls waiting for a reply at once; above it a call fails with EAGENTRPC_BUSY. Default 10,000.'),
      maxBytes: z.int().min(1).optional().describe('Largest envelope accepted, in bytes; also the largest body of the session API and of this agent\'s A2A endpoint (413 above it). Default 1 MiB.'),
      maxDepth: z.int().min(1).optional().describe('Deepest JSON nesting accepted in an envelope, and in a body of the HTTP front doors (session API, /execute, A2A; 400 beyond it). Default 64.'),
      maxDeliveryAttempts: z.int().min(1).optional().describe('Deliveries of one message before a retriable handler failure is final. Default 3.'),
      retryDelayMs: z.int().min(1).optional().describe('First redelivery delay; doubles per attempt, capped at 30 s. Default 100.'),
      connectionLossGraceMs: z
        .int()
        .min(1)
        .optional()
        .describe("Fail fast on a lost transport connection: once it has been lost this long, the calls waiting on it end as EAGENTRPC_ABANDONED (connection-lost) and new calls on it are refused until it is back. Default: unset, calls wait through an outage until their deadlines (ending as abandoned, connection-lost, if it is still lost then)."),
      drainTimeoutMs: z.int().min(1).optional().describe('How long a shutdown waits for running handlers. Default 10,000.'),
    })
    .optional()
    .describe("The limits of the agent's inbox and caller side; the one home of every limit (event-sources.yaml `limits` is an alias of concurrency and maxInflight)."),
  guard: z
    .strictObject({
      maxDepth: z.int().min(1).optional().describe('Collapsed call depth of a flow. Default 5.'),
      maxAgents: z.int().min(1).optional().describe('Distinct agents in a flow. Default 10.'),
      maxFlowMs: z.int().min(1).optional().describe('Age of a flow after which its calls are refused. Default 300,000.'),
      maxCallsPerMinute: z.int().min(1).optional().describe('Agent-to-agent calls per rolling minute in a flow. Default 20.'),
      maxCallsPerFlow: z.int().min(1).optional().describe('Agent-to-agent calls in a flow. Default 100.'),
      maxTokens: z.int().min(1).optional().describe('Model tokens (input + output) a flow may spend before its further calls and model requests are refused. Default: no budget.'),
      maxCostUsd: z.number().positive().optional().describe('Model cost in USD a flow may spend before its further calls and model requests are refused. Default: no budget.'),
      store: z
        .strictObject({
          kind: z.literal('redis').describe('The store kind.'),
          url: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').describe('`redis://` or `rediss://` URL of the Redis server.'),
          keyPrefix: z.string().min(1).optional().describe('Prefix of every key. Default `agent-rpc:flow:`.'),
        })
        .optional()
        .describe('Whole-flow counts shared between processes. Default: counted in this process only.'),
      implicitFlow: z
        .boolean()
        .optional()
        .describe('Calls a handler makes through the node, not `ctx`, join its flow (AsyncLocalStorage). Default true; false spares Node 20 and 22 a hook on every promise (docs/guard.md).'),
    })
    .optional()
    .describe('Runaway-guard limits (docs/guard.md).'),
  tracing: tracingConfigSchema.optional().describe("OpenTelemetry spans of `agent-rpc serve` (docs/observability.md); only the first agent's block of a process counts."),
  log: z
    .strictObject({
      level: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info').describe('The lowest level logged.'),
      summaryIntervalMs: z
        .int()
        .min(100)
        .default(10_000)
        .describe('Repeated warnings about messages (dead-lettered, auth-rejected, failed handlers) are written once per reason in this interval, then summarised in one line with their count and a sample. Default 10,000.'),
    })
    .optional()
    .describe("The process's log (pino JSON on stdout); only the first agent's block of a process counts."),
  http: z
    .strictObject({
      port: portSchema.default(9464).describe('Port of /healthz, /readyz, /metrics and /api/v1 (0: any free port).'),
      host: z.string().default('127.0.0.1').describe('Address the HTTP server binds to.'),
      publicUrl: z
        .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
        .optional()
        .describe('How clients reach this server (behind a proxy, another host name); A2A Agent Cards name their endpoints under it. Default `http://<host>:<port>`.'),
    })
    .optional()
    .describe("The process's HTTP server; only the first agent's block of a process counts."),
  api: z
    .strictObject({
      tokens: z
        .array(
          z.strictObject({
            user: z.string().regex(/^[A-Za-z0-9._@-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9._@-]').describe('Who the token stands for (sessions belong to users).'),
            role: z.enum(ROLES).describe("The token's role (docs/sessions.md)."),
            tokenRef: z.string().min(1).describe('A secret reference (`${env:NAME}`, `file:`, `secret://`, `vault:`), never the token itself.'),
          }),
        )
        .default([])
        .describe('Bearer tokens of /api/v1; without any, every /api call is refused.'),
    })
    .optional()
    .describe("The node's HTTP API (sessions, remote nodes)."),
  remoteNodes: alias(remoteNodesConfigSchema.optional().describe("Other nodes' session APIs this agent may call (docs/remote-nodes.md)."), 'remote_nodes'),
  audit: auditConfigSchema.prefault({}).describe("The audit log `<dataDir>/audit.jsonl`: rotation, retention and what is recorded (docs/audit.md)."),
  dlq: dlqConfigSchema.prefault({}).describe('The DLQ `<dataDir>/dlq.jsonl`: its bounds (docs/delivery.md).'),
  dataDir: z.string().default('./data').describe('Where the agent keeps its files (DLQ, audit log, dedupe store, sessions, A2A tasks), relative to the config directory.'),
});
export type AgentFile = z.infer<typeof agentFileSchema>;

/**
 * agent.yaml as a process with these plug-ins reads it: the core's sections, each plug-in's
 * sections, and `handlers:` and `events:` entries of the handler types there are.
 */
export function agentFileSchemaOf(plugins: Plugins): z.ZodType<AgentFile> {
  checkPlugins(plugins, Object.keys(agentFileSchema.shape));
  const sections = Object.assign({}, ...[...plugins.frontDoors, ...plugins.handlerTypes].map((plugin) => plugin.configShape ?? {})) as Record<string, z.ZodType>;
  const [first, ...others] = plugins.handlerTypes.map((type) => type.entrySchema);
  const entry = first === undefined ? z.never() : others.length === 0 ? first : z.union([first, ...others]);
  const handlers = z.record(z.string(), entry).default({}).describe(agentFileSchema.shape.handlers.description ?? '');
  const events = z.record(z.string(), entry).default({}).describe(agentFileSchema.shape.events.description ?? '');
  return agentFileSchema.extend({ ...sections, handlers, events }) as unknown as z.ZodType<AgentFile>;
}
