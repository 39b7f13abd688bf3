import type { Logger } from '../logger.js';
import { LogThrottle, type RpcMetrics } from '../observability/index.js';
import { noAudit } from '../audit/index.js';
import { recursionLogLine, type GuardViolation } from '../guard/index.js';
import type { NodeIdentity, Telemetry } from './node-core.js';

/** Agents passing a flow on without doing any work of their own: a warning, not a refusal. */
export function reportIdleHops(core: Telemetry & Pick<NodeIdentity, 'agentId'>, hops: number, from: string, to: string, correlationId: string): void {
  core.metrics.guardWarning?.('idle-hops');
  if (core.logger.isLevelEnabled('warn')) {
    core.logger.warn({ correlationId, from, to, hops }, `[RECURSION] Warning: flow ${correlationId} made ${hops} agent-to-agent calls in a row with no work in between (${from}→${to})`);
  }
}

/** A guard refusal becomes a `[RECURSION]` log line, a `guard_reject` audit record and a metric. */
export function reportGuardRejection(core: Telemetry & Pick<NodeIdentity, 'agentId'>, violation: GuardViolation, from: string, to: string, correlationId: string): void {
  core.metrics.guardRejected?.(violation.rule);
  if (core.audit !== noAudit) {
    core.audit.append({ kind: 'guard_reject', agentId: core.agentId, from, to, rule: violation.rule, message: violation.message, value: violation.value, limit: violation.limit, correlationId });
  }
  if (core.logger.isLevelEnabled('warn')) {
    core.logger.warn({ correlationId, from, to, rule: violation.rule, value: violation.value, limit: violation.limit }, recursionLogLine(from, to, violation));
  }
}

/**
 * What happens when the shared flow store fails: the call is admitted on envelope and
 * local counts; each failure is counted, and logged at most every 10 s per node (a Redis
 * outage must not flood the logs).
 */
export function guardStoreErrorReporter(logger: Logger, metrics: RpcMetrics): (error: unknown) => void {
  const throttle = new LogThrottle(10_000);
  return (error) => {
    metrics.guardWarning?.('store-unavailable');
    if (throttle.due() === undefined) return;
    logger.warn({ err: error }, '[RECURSION] flow store unavailable: whole-flow counts fall back to envelope and local counts');
  };
}
