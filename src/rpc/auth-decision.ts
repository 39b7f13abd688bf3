import type { AuthVerdict } from '../auth/provider.js';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { NodeCore } from './node-core.js';

/** Every verify decision, accept or reject, becomes an `auth_check` audit record and a metric. */
export function recordAuthDecision(core: NodeCore, provider: string, envelope: AgentRpcEnvelope, verdict: AuthVerdict): void {
  const decision = verdict.ok ? 'accept' : 'reject';
  core.metrics.authDecision?.(provider, decision, verdict.ok ? undefined : verdict.reason);
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
  if (!verdict.ok && core.logger.isLevelEnabled('warn')) {
    core.logger.warn(
      { messageId: envelope.messageId, correlationId: envelope.correlationId, capability: envelope.capability, from: envelope.from, to: envelope.to, provider, reason: verdict.reason },
      `auth rejected: ${verdict.reason}`,
    );
  }
}
