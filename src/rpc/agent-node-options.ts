import { positiveInteger } from '../check-integer.js';
import type { AuthProvider } from '../auth/index.js';
import type { AuditLog } from '../audit/index.js';
import type { GuardLimits, GuardStore } from '../guard/index.js';
import type { Clock } from '../clock.js';
import type { DlqSink } from '../dlq/index.js';
import type { DedupeOptions } from '../idempotency/index.js';
import type { Logger } from '../logger.js';
import type { RpcMetrics, FlowObserver } from '../observability/index.js';
import type { TracerProvider } from '@opentelemetry/api';
import type { Gateway } from '../gateway.js';
import type { RpcTransport } from '../transport.js';
import type { NodeLimits } from './node-core.js';
import type { PeerEntry, PeerTable } from './peer-table.js';
import type { CapabilitySchema } from './capability-schemas.js';
import type { PermissionRules } from './permissions.js';
import type { AgentTopics } from './topics.js';
import type { ApprovalGate } from './approvals.js';
import type { Middleware } from './middleware.js';
import type { StageTimes } from './stage-runner.js';

export interface AgentNodeOptions {
  /** The agent's id; it is addressed as `agent://<id>`. */
  readonly id: string;
  /** Transports this node listens and sends on; the node owns them and closes them. */
  readonly transports: readonly RpcTransport[];
  /** Gateways this node calls peers of other protocols through (`http`, `a2a`); the node owns them and closes them. */
  readonly gateways?: readonly Gateway[];
  readonly peers?: PeerTable | readonly PeerEntry[];
  readonly permissions?: PermissionRules;
  /** Bus scope: only envelopes of this tenant are accepted; topics are tenant-scoped. */
  readonly tenantId?: string;
  readonly topics?: Partial<AgentTopics>;
  /**
   * Names this replica; its replies come back on a topic of its own, and its dedupe claims
   * carry it, so a restart under the same name takes over the claims a crash left. Use a
   * stable name (pod name, hostname) where the transport keeps per-instance state (Kafka)
   * or the dedupe store outlives the process; never the same name for two processes
   * running at once. Default: random per process start (claims then default to
   * `<id>@<hostname>`, see `idempotency.instance`).
   */
  readonly instanceId?: string;
  /**
   * Verifies everything this node receives (a peer entry's provider, when it verifies,
   * takes over for that peer) and signs what goes to peers without a provider of their
   * own. Must be able to verify. Default `internal`.
   */
  readonly auth?: AuthProvider;
  /** This node's capabilities with their JSON Schemas: inputs are checked before dispatch, results after. */
  readonly capabilities?: readonly CapabilitySchema[];
  /** Peers' published capabilities by agent id or URI: payloads are checked before they are sent. */
  readonly peerCapabilities?: Readonly<Record<string, readonly CapabilitySchema[]>>;
  /** Runaway-guard limits for flows through this node (see docs/guard.md). */
  readonly guard?: Partial<GuardLimits>;
  /** Whole-flow counts shared between processes (e.g. RedisGuardStore); the node does not close it. */
  readonly guardStore?: GuardStore;
  /** Where every auth decision is recorded (`auth_check`). Default: not recorded. */
  readonly audit?: AuditLog;
  readonly dlq?: DlqSink;
  /** Answers handlers' approval prompts (`ctx.requestApproval`). Default: every prompt declined. */
  readonly approvals?: ApprovalGate;
  /** Dedupe of redeliveries. Default: an in-memory store, `message-id` strategy, 1 h TTL. */
  readonly idempotency?: Partial<DedupeOptions>;
  readonly limits?: Partial<NodeLimits> & { readonly pendingCapacity?: number; readonly maxInflight?: number };
  /**
   * Whether calls made through the node (`node.requestAgent`) from inside a handler join
   * the handler's flow, as `ctx.requestAgent` always does. Default true. It runs handlers
   * in an AsyncLocalStorage context, which on Node 20 and 22 puts a hook on every promise
   * of the process (on Node 24 it costs next to nothing): a fleet whose handlers call
   * through `ctx` can turn it off there and lose nothing.
   */
  readonly implicitFlow?: boolean;
  /** How long `close()` waits for running handlers. Default 10,000 ms. */
  readonly drainTimeoutMs?: number;
  readonly logger?: Logger;
  /**
   * Repeated warnings about messages (dead-lettered, auth-rejected, failed handlers) are
   * written once per reason in this interval and then summarised with a count and a sample
   * (docs/observability.md). Default 10,000 ms.
   */
  readonly warnSummaryIntervalMs?: number;
  readonly metrics?: RpcMetrics;
  /**
   * Where the node's spans go. Default: the OpenTelemetry API's global provider, a no-op
   * until the application registers an SDK (agent-rpc never registers one itself).
   */
  readonly tracerProvider?: TracerProvider;
  /** Hears each call this node makes and handles (a FlowRecorder for the flow pages). Default: nobody. */
  readonly flows?: FlowObserver;
  /**
   * Stages of the node's own around every handler it runs and every call it makes, wrapped
   * once when the node is built (docs/middleware.md); the first is outermost. They run inside
   * the node's built-in stages (metrics, flow recording, tracing, flow context).
   */
  readonly middleware?: readonly Middleware[];
  /** Times every receive and send stage into this record (`npm run bench:stages`); never for production. */
  readonly stageTimes?: StageTimes;
  readonly clock?: Clock;
}

export const DEFAULT_LIMITS: NodeLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  concurrency: 256,
  maxDeliveryAttempts: 3,
  retryDelayMs: 100,
};

export function checkAuth(auth: AuthProvider): AuthProvider {
  if (typeof auth?.verify !== 'function') {
    throw new TypeError(`AgentNode: auth provider ${String(auth?.name)} cannot verify; give the node a verifying provider (e.g. oidc with issuer and audience)`);
  }
  return auth;
}

export function checkLimits(limits: NodeLimits): NodeLimits {
  for (const [field, value] of Object.entries(limits)) if (value !== undefined) positiveInteger(value, `AgentNode: limits.${field}`);
  return limits;
}
