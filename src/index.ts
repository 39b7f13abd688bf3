/** The public API of agent-rpc. Transports live in their own subpath exports (`agent-rpc/memory`, ...). */
export { AgentNode, type AgentNodeOptions } from './rpc/agent-node.js';
export type { RequestAgentOptions } from './rpc/request-agent.js';
export type { RetryOptions } from './rpc/sync-call.js';
export { CapabilitySchemas, type CapabilitySchema, type SchemaDirection } from './rpc/capability-schemas.js';
export { PING_CAPABILITY, CAPABILITIES_CAPABILITY, REQUEUE_CAPABILITY, type CapabilitiesAnswer } from './rpc/builtin-capabilities.js';
export { TRACEPARENT_HEADER, parseTraceparent, childTraceparent } from './rpc/trace-context.js';
export { generateClient, type GenerateClientOptions } from './codegen/generate-client.js';
export type { RequeueResult } from './rpc/requeue.js';
export { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from './rpc/request-agent.js';
export { CALL_MODES, CALL_STATUSES, type CallMode, type CallResult, type CallStatus } from './rpc/call-result.js';
export type { Handler, HandlerContext, HandlerResult, RespondOptions } from './rpc/handler.js';
export type { LocalBusEventName, LocalBusEvents } from './rpc/local-bus.js';
export type { NodeLimits } from './rpc/node-core.js';
export { PeerTable, normalizeAgentUri, type PeerEntry, type PeerRoute } from './rpc/peer-table.js';
export { compilePermissions, requestPermissionKey, type PermissionRules } from './rpc/permissions.js';
export { PendingRegistry, type PendingCall, type PendingOutcome } from './rpc/pending-registry.js';
export { defaultAgentTopics, type AgentTopics } from './rpc/topics.js';
export type { ResponsePayload } from './rpc/response-payload.js';

export { RpcError, RPC_ERROR_CODES, toRpcError, type RpcErrorCode, type WireError } from './errors.js';
export {
  formatReplyTo,
  parseReplyTo,
  type Delivery,
  type DeliveryCoordinates,
  type DeliveryHandler,
  type OutboundMessage,
  type RpcTransport,
  type SubscribeOptions,
  type Subscription,
  type TransportKind,
  type TransportTraits,
} from './transport.js';
export { checkTransportPlugins, type TransportPlugin, type TransportPluginContext } from './transport-plugin.js';
export { backoffDelay, type BackoffPolicy } from './backoff.js';

export {
  ENVELOPE_VERSION,
  DECODE_FAILURE_REASONS,
  agentUri,
  agentIdOf,
  canonicalizeForSigning,
  decodeEnvelope,
  encodeEnvelope,
  newCorrelationId,
  newMessageId,
  type AgentRpcEnvelope,
  type DecodeFailureReason,
  type DecodeResult,
  type EnvelopeAuth,
  type EnvelopeKind,
} from './envelope/index.js';

export { internalAuth } from './auth/internal-provider.js';
export { hmacAuth, SIGNED_AT_HEADER, type HmacAuthOptions } from './auth/hmac-provider.js';
export { oidcAuth, type OidcAuthOptions } from './auth/oidc-provider.js';
export { oauth2ClientAuth, type OAuth2ClientAuthOptions } from './auth/oauth2-client-provider.js';
export { ClientCredentialsTokens, type ClientCredentialsOptions } from './auth/client-credentials.js';
export { JWT_ALGORITHMS, type JwtVerifyOptions } from './auth/jwt-verifier.js';
export { AUTH_REJECT_REASONS, type AuthRejectReason } from './auth/reasons.js';
export type { SecretInput } from './auth/secret-input.js';
export type { AuthProvider, AuthVerdict, VerifyContext } from './auth/provider.js';
export {
  noAudit,
  FileAuditLog,
  verifyAuditLog,
  readAuditLog,
  iterateAuditLog,
  AUDIT_PROBLEMS,
  AUDIT_FSYNC_POLICIES,
  GENESIS_HASH,
  type AuditReadFilter,
  type AuditFsyncPolicy,
  type AuditProblem,
  type AuditHead,
  type AuditEntry,
  type AuditLog,
  type AuditRecord,
  type AuditVerifyResult,
  type FileAuditLogOptions,
} from './audit/index.js';
export { SecretValue, createSecretResolver, parseSecretRef, parseKeyRing, VaultKvReader, type SecretResolver, type SecretSchemeResolver } from './secrets/index.js';
export { ConfigError } from './config/config-error.js';
export { loadPeersFile, type PeersFileOptions } from './config/peers-file.js';
export { buildPeerAuth, buildReceiverAuth } from './config/build-auth.js';
export { peerAuthSchema, receiverAuthSchema, type PeerAuthConfig, type ReceiverAuthConfig } from './config/auth-config.js';
export { DLQ_KINDS, type DlqKind, type DlqRecord, type DlqSink, type DlqFilter } from './dlq/record.js';
export { MemoryDlqSink } from './dlq/memory-sink.js';
export { JsonlDlqSink, type JsonlDlqSinkOptions } from './dlq/jsonl-file-sink.js';
export type { IdempotencyStore, ClaimResult, StoredReply } from './idempotency/store.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './idempotency/memory-store.js';
export { SqliteIdempotencyStore, type SqliteIdempotencyStoreOptions } from './idempotency/sqlite-store.js';
export { DEDUPE_STRATEGIES, type DedupeOptions, type DedupeStrategy } from './idempotency/dedupe.js';
export { silentLogger, type Logger, type LogLevel } from './observability/logger.js';
export { noMetrics, type RpcMetrics } from './observability/metrics.js';
export { PrometheusMetrics } from './observability/prometheus-metrics.js';
export { createPinoLogger, REDACTED_LOG_PATHS } from './observability/pino-logger.js';
export { startDaemon, type RunningDaemon, type DaemonOptions } from './runtime/daemon.js';
export { loadAgentConfig, type AgentConfig } from './config/agent-config.js';
export { systemClock, type Clock } from './clock.js';
export {
  collapseChain,
  FLOW_HEADER,
  DEFAULT_GUARD_LIMITS,
  GUARD_RULES,
  RunawayGuard,
  type FlowState,
  type GuardLimits,
  type GuardRule,
  type GuardViolation,
} from './guard/index.js';
export type { ApprovalAnswer, ApprovalGate, ApprovalPrompt } from './rpc/approvals.js';
export type { UndeliverableMessage } from './transport.js';
export { ROLES, roleCan, type Role, type Permission, type Principal } from './server/roles.js';
export { DEFAULT_REMOTE_TIMEOUT_MS, type RemoteNode, type RemoteNodeResolver, type RemoteAuthType } from './server/remote-nodes/remote-node.js';
export { defineTool, buildAgentTools, remoteAgentTool, listRemoteNodesTool, toolPolicySchema, type Tool, type ToolContext, type ToolResult, type ToolParameters, type ToolPolicy } from './agent/index.js';
