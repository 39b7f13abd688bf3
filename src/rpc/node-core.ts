import type { AuditLog } from '../audit/index.js';
import type { Cancellations } from './cancellations.js';
import type { ApprovalGate } from './approvals.js';
import type { RunawayGuard } from '../guard/index.js';
import type { CapabilitySchemas } from './capability-schemas.js';
import type { AuthProvider } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { DlqSink } from '../dlq/index.js';
import type { Dedupe } from '../idempotency/index.js';
import type { Logger } from '../logger.js';
import type { RepeatedWarnings, RpcMetrics, FlowObserver } from '../observability/index.js';
import type { RpcTracing } from '../observability/tracing/rpc-tracing.js';
import type { RpcTransport, TransportKind } from '../transport.js';
import type { LocalBus } from './local-bus.js';
import type { Outbound } from './outbound.js';
import type { PeerTable } from './peer-table.js';
import type { PendingRegistry } from './pending-registry.js';
import type { PermissionCheck } from './permissions.js';
import type { AgentTopics } from './topics.js';
import type { CallSender, OutgoingCall } from './middleware.js';

export interface NodeLimits {
  /** Largest envelope accepted, in bytes. Default 1 MiB. */
  readonly maxBytes: number;
  /** Deepest JSON nesting accepted. Default 64. */
  readonly maxDepth: number;
  /**
   * Handlers running at once on this node. Above it, deliveries wait (and count against
   * the transport's maxInflight, which then pauses consumption). Default 256.
   */
  readonly concurrency: number;
  /** Deliveries of one message before a retriable handler failure is final. Default 3. */
  readonly maxDeliveryAttempts: number;
  /** First redelivery delay; doubles per attempt, capped at 30 s. Default 100 ms. */
  readonly retryDelayMs: number;
  /**
   * When set: how long a transport's lost connection may stay lost before the calls
   * waiting on it are settled as abandoned (`connection-lost`) early, and new calls on it
   * refused until it is back. Unset (the default), calls wait through an outage until
   * their deadlines and, if the connection is still lost then, end as abandoned
   * (`connection-lost`) rather than timed out.
   */
  readonly connectionLossGraceMs?: number;
}

/** Who this node is. */
export interface NodeIdentity {
  readonly agentId: string;
  /** `agent://<agentId>` */
  readonly uri: string;
  readonly tenantId: string | undefined;
  readonly topics: AgentTopics;
  /** Distinguishes replicas of one agent: each receives the replies to its own calls only. */
  readonly instanceId: string;
}

/** Where the node reports: every part of it may log, count and audit. */
export interface Telemetry {
  readonly logger: Logger;
  /** Warnings about messages, one per reason per interval and then a summary: bad input must not flood the log. */
  readonly warnings: RepeatedWarnings;
  readonly metrics: RpcMetrics;
  /** Spans of calls, deliveries and handler runs (no-op until an OpenTelemetry SDK is registered or given). */
  readonly tracing: RpcTracing;
  /** Hears each call of a flow (the flow pages' recorder); empty by default. */
  readonly flows: FlowObserver;
  readonly clock: Clock;
  readonly audit: AuditLog;
}

/** How the node reaches peers and proves who it is. */
export interface NodeLinks {
  /** Per transport and gateway kind, the `replyTo` URI this instance puts on its requests. */
  readonly replyTo: ReadonlyMap<TransportKind, string>;
  /** What replies and requeued messages are published on. */
  readonly transports: ReadonlyMap<TransportKind, RpcTransport>;
  /** What calls go out on, by route kind: every transport and every gateway. */
  readonly outbound: ReadonlyMap<TransportKind, Outbound>;
  readonly peers: PeerTable;
  /** Verifies what arrives (unless a peer has its own verifier) and signs by default. */
  readonly auth: AuthProvider;
}

/** What the caller side (requestAgent, sync calls) needs. */
export interface CallerCore extends NodeIdentity, Telemetry, NodeLinks {
  readonly registry: PendingRegistry;
  readonly permissions: PermissionCheck;
  readonly guard: RunawayGuard;
  /** Published schemas of peers' capabilities, by peer URI: payloads checked before sending. */
  readonly peerSchemas: Map<string, CapabilitySchemas>;
  readonly bus: LocalBus;
  /** The node's send pipeline (stages/node-pipeline.ts), set once when the node is built. */
  readonly outgoing: OutgoingPipeline;
}

export interface OutgoingPipeline {
  /** The send path inside every middleware's `call`. */
  send: CallSender;
  /** Middleware's `sending` hooks, run on each built request before it is signed. */
  sending: readonly ((call: OutgoingCall) => void)[];
  /** The send stages, by name, in order (for `node.stages`). */
  sendStages: readonly { readonly name: string }[];
}

/** What the inbox (receive, dispatch, reply, dead-letter) needs, besides calling on behalf of handlers. */
export interface InboxCore extends CallerCore {
  /** JSON Schemas of this node's capabilities: inputs checked before dispatch, results after. */
  readonly schemas: CapabilitySchemas;
  readonly dlq: DlqSink;
  /** Answers handlers' approval prompts (the session API); outside a session they are declined. */
  readonly approvals: ApprovalGate;
  readonly dedupe: Dedupe;
  readonly limits: NodeLimits;
  /** Cancellation signals of the requests being handled. */
  readonly cancellations: Cancellations;
  /** Handlers run inside an AsyncLocalStorage context, so calls through the node join their flow. */
  readonly implicitFlow: boolean;
}

/** The signer and reply addresses of a node: enough to sign and route, nothing else. */
export type SignerCore = Pick<NodeIdentity, 'uri'> & Pick<NodeLinks, 'peers' | 'auth'>;

/** The provider that signs what goes to a peer: the peer's own, else the node's. */
export function signerFor(core: SignerCore, peerUri: string): AuthProvider {
  return core.peers.get(peerUri)?.auth ?? core.auth;
}

/** The provider that verifies what a peer sends: the peer's own when it verifies, else the node's. */
export function verifierFor(core: SignerCore, peerUri: string): AuthProvider & Required<Pick<AuthProvider, 'verify'>> {
  const own = core.peers.get(peerUri)?.auth;
  return (own?.verify !== undefined ? own : core.auth) as AuthProvider & Required<Pick<AuthProvider, 'verify'>>;
}
