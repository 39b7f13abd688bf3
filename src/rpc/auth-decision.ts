import type { AuthVerdict } from '../auth/index.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import { noAudit } from '../audit/index.js';
import type { NodeIdentity, Telemetry } from './node-core.js';

/** Every verify decision, accept or reject, becomes an `auth_check` audit record and a metric. */
export function recordAuthDecision(core: Telemetry & Pick<NodeIdentity, 'agentId'>, provider: string, envelope: AgentRpcEnvelope, verdict: AuthVerdict): void {
  const decision = verdict.ok ? 'accept' : 'reject';
  core.metrics.authDecision?.(provider, decision, verdict.ok ? undefined : verdict.reason);
  // The default log records nothing: skip building the record on the hot path.
  if (core.audit !== noAudit) {
    core.audit.append({
      kind: 'auth_check',
      agentId: core.agentId,
      peerId: envelope.from,
      provider,
      decision,
      ...(verdict.ok ? { subject: verdict.subject } : { reason: verdict.reason, detail: verdict.detail }),
      messageId: envelope.messageId,
      correlationId: envelope.correlationId,
      envelopeKind: envelope.kind,
      capability: envelope.capability,
    });
  }
  if (!verdict.ok && core.logger.isLevelEnabled('warn')) {
    const { messageId, correlationId, capability, from, to } = envelope;
    core.warnings.warn(`auth:${provider}:${verdict.reason}`, { provider, reason: verdict.reason }, () => ({ messageId, correlationId, capability, from, to, provider, reason: verdict.reason }), `auth rejected: ${verdict.reason}`);
  }
}

/**
 * An envelope of another tenant is refused before auth: it becomes a `tenant_reject`
 * audit record next to its DLQ record, so the audit log shows every envelope the agent
 * turned away, not only those its auth provider judged.
 */
export function recordTenantRejection(core: Telemetry & Pick<NodeIdentity, 'agentId' | 'tenantId'>, envelope: AgentRpcEnvelope, detail: string): void {
  if (core.audit === noAudit) return;
  core.audit.append({
    kind: 'tenant_reject',
    agentId: core.agentId,
    peerId: envelope.from,
    reason: 'tenant-mismatch',
    detail,
    tenantId: envelope.tenantId ?? null,
    expectedTenantId: core.tenantId ?? null,
    messageId: envelope.messageId,
    correlationId: envelope.correlationId,
    envelopeKind: envelope.kind,
    capability: envelope.capability,
  });
}
