/**
 * `agent-rpc`: the library — agent nodes, calls and handlers, middleware, auth, stores and
 * errors. The features are entry points of their own: the wire (`agent-rpc/envelope`), the
 * transport plug-in interface (`agent-rpc/transport`), remote execution, flow recording and
 * the audit log (`agent-rpc/remote-execution`, `/flow-recording`, `/audit`), the daemon,
 * the session API, model-agent tools and test helpers (`agent-rpc/daemon`, `/server`,
 * `/tools`, `/testing`); each transport is its own subpath (`agent-rpc/memory`,
 * `agent-rpc/nats`, ...). test/unit/public-api.test.ts snapshots them all, with signatures.
 */
export { AgentNode, type AgentNodeOptions } from './rpc/agent-node.js';
export { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, type RequestAgentOptions } from './rpc/request-agent.js';
export type { RetryOptions } from './rpc/sync-call.js';
export { CALL_MODES, CALL_STATUSES, type CallMode, type CallResult, type CallStatus } from './call-result.js';
export type { EventContext, EventHandler, Handler, HandlerContext, HandlerResult, RespondOptions } from './rpc/handler.js';
export { checkFlowBudget, reportUsage, tracingOf, usageOf } from './rpc/handler-features.js';
export type { CallSender, HandlerInvoker, Middleware, OutgoingCall } from './rpc/middleware.js';
export type { ResponsePayload } from './rpc/response-payload.js';
export type { CapabilitySchema, SchemaDirection } from './rpc/capability-schemas.js';
export { PING_CAPABILITY, CAPABILITIES_CAPABILITY, REQUEUE_CAPABILITY, type CapabilitiesAnswer } from './rpc/builtin-capabilities.js';
export type { RequeueResult } from './rpc/requeue.js';
export type { LocalBusEventName, LocalBusEvents } from './rpc/local-bus.js';
export type { NodeLimits } from './rpc/node-core.js';
export { PeerTable, normalizeAgentUri, type PeerEntry, type PeerRoute } from './rpc/peer-table.js';
export type { PermissionRules } from './rpc/permissions.js';
export { defaultAgentTopics, type AgentTopics } from './rpc/topics.js';
export type { ApprovalAnswer, ApprovalGate, ApprovalPrompt } from './rpc/approvals.js';
export type { ApprovalAsker } from './rpc/approval-chain.js';
export { addUsage, NO_USAGE, type Usage } from './flow-usage.js';
export type { InboundMessage, InboundPort, InboundReply, OwnRequest } from './rpc/inbound-port.js';

export { RpcError, RPC_ERROR_CODES, toRpcError, type RpcErrorCode, type WireError } from './errors.js';

export { agentUri, agentIdOf, type AgentRpcEnvelope } from './envelope/index.js';

export { internalAuth } from './auth/internal-provider.js';
export { hmacAuth, type HmacAuthOptions } from './auth/hmac-provider.js';
export type { ReplayCheck, SharedReplayStore } from './auth/replay-guard.js';
export { RedisReplayStore, type RedisReplayStoreOptions } from './auth/redis-replay-store.js';
export { replayStoreErrorReporter } from './auth/replay-memory.js';
export { oidcAuth, type OidcAuthOptions } from './auth/oidc-provider.js';
export { oauth2ClientAuth, type OAuth2ClientAuthOptions } from './auth/oauth2-client-provider.js';
export { JWT_ALGORITHMS, type JwtVerifyOptions } from './auth/jwt-verifier.js';
export { AUTH_REJECT_REASONS, type AuthRejectReason } from './auth/reasons.js';
export type { SecretInput } from './auth/secret-input.js';
export type { AuthProvider, AuthVerdict, VerifyContext } from './auth/provider.js';
export { SecretValue } from './secrets/secret-value.js';

export { DLQ_KINDS, type DlqKind, type DlqRecord, type DlqSink, type DlqFilter } from './dlq/record.js';
export { MemoryDlqSink } from './dlq/memory-sink.js';
export { JsonlDlqSink, type JsonlDlqSinkOptions, type DlqRetention, type DlqDropReason } from './dlq/jsonl-file-sink.js';
export type { IdempotencyStore, ClaimOwner, ClaimResult, StoredReply } from './idempotency/store.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './idempotency/memory-store.js';
export { SqliteIdempotencyStore, type SqliteIdempotencyStoreOptions } from './idempotency/sqlite-store.js';
export { DEDUPE_STRATEGIES, type DedupeOptions, type DedupeStrategy } from './idempotency/dedupe.js';
export { DEFAULT_GUARD_LIMITS, GUARD_RULES, type GuardLimits, type GuardRule, type GuardViolation } from './guard/index.js';
export type { GuardStore } from './guard/guard-store.js';
export { RedisGuardStore } from './guard/redis-guard-store.js';
export { silentLogger, type Logger, type LogLevel } from './logger.js';
export { noMetrics, type RpcMetrics } from './observability/metrics.js';
export { PrometheusMetrics } from './observability/prometheus-metrics.js';
export { createPinoLogger, REDACTED_LOG_PATHS } from './observability/pino-logger.js';
export { systemClock, type Clock } from './clock.js';
