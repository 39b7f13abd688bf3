import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { InboxCore } from './node-core.js';

const OVERRAN = Symbol('deadline passed');

/**
 * A handler's run bounded by its request's deadline, for callers waiting on the exchange
 * itself (the HTTP front doors): a handler that ignores `ctx.signal` is answered
 * EAGENTRPC_TIMEOUT at the deadline instead of whenever it ends. It is not stopped (nothing
 * can stop a promise); what it answers later is discarded, logged and counted
 * (`lateResultDiscarded`). The error is not retriable: a redelivery would come after the
 * deadline and be refused.
 */
export async function withinDeadline(core: InboxCore, envelope: AgentRpcEnvelope & { deadline: number }, running: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<typeof OVERRAN>((resolve) => (timer = setTimeout(resolve, Math.max(0, envelope.deadline - core.clock.now()), OVERRAN)));
  try {
    const first = await Promise.race([running, passed]);
    if (first !== OVERRAN) return first;
  } finally {
    clearTimeout(timer);
  }
  // The signal's own timer may not have fired yet, and the dispatch releases it next.
  core.cancellations.expire(envelope.messageId);
  const { capability, deadline } = envelope;
  void running.then(
    () => discarded(core, envelope, 'ok'),
    () => discarded(core, envelope, 'error'),
  );
  throw new RpcError('EAGENTRPC_TIMEOUT', `the handler for ${capability} ran past its deadline and was answered without its result`, {
    retriable: false,
    details: { deadline, overran: true },
  });
}

function discarded(core: InboxCore, envelope: AgentRpcEnvelope & { deadline: number }, outcome: 'ok' | 'error'): void {
  const lateMs = core.clock.now() - envelope.deadline;
  core.metrics.lateResultDiscarded?.(envelope.capability);
  core.logger.warn(
    { code: 'EAGENTRPC_TIMEOUT', lateResult: 'discarded', outcome, lateMs, capability: envelope.capability, messageId: envelope.messageId, correlationId: envelope.correlationId, from: envelope.from },
    `handler for ${envelope.capability} finished ${lateMs} ms after its deadline; its result was discarded (the caller was answered EAGENTRPC_TIMEOUT)`,
  );
}
