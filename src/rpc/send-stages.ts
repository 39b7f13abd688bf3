import { agentIdOf, newMessageId, type AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import { FLOW_HEADER, guardError } from '../guard/index.js';
import { statusForError, type CallResult } from '../call-result.js';
import { encodeUsage, flowSpentAt, FLOW_USAGE_HEADER, recordUsage } from '../flow-usage.js';
import { reportGuardRejection, reportIdleHops } from './guard-report.js';
import type { CallerCore } from './node-core.js';
import type { CallState } from './outgoing-call.js';
import type { PendingOutcome } from './pending-registry.js';
import { requestPermissionKey } from './permissions.js';
import { deliverCall } from './deliver-call.js';
import { childTraceparent, TRACEPARENT_HEADER } from '../trace-context.js';

/** A send stage checks or builds; it returns an error to refuse the call (nothing is sent). */
export interface SendStage {
  readonly name: string;
  readonly run: (call: CallState) => RpcError | undefined;
}

/**
 * The send path as the ordered list of stages every call of a node runs before it is
 * delivered (deliver-call.ts: sign, pending registry, publish, settle), assembled once.
 * All are synchronous: a call reaches its publish without a promise of its own.
 */
export function sendStages(core: CallerCore): SendStage[] {
  return [
    { name: 'permission', run: (call) => permission(core, call) },
    { name: 'route', run: (call) => route(core, call) },
    { name: 'peer-schema', run: (call) => core.peerSchemas.get(call.to)?.check(call.capability, 'input', call.payload) },
    { name: 'guard', run: (call) => guard(core, call) },
    { name: 'flow-budget', run: (call) => flowBudget(core, call) },
    { name: 'envelope', run: (call) => buildEnvelope(core, call) },
  ];
}

/** The innermost sender: the stages, then the `sending` hooks, then delivery by mode. */
export function sendCall(core: CallerCore, stages: readonly SendStage[], call: CallState): Promise<CallResult> {
  for (const stage of stages) {
    const refused = stage.run(call);
    if (refused) return Promise.resolve(callResult(call, { ok: false, error: refused }, undefined));
  }
  for (const hook of core.outgoing.sending) hook(call);
  return deliverCall(core, call);
}

/** The CallResult of an outcome; usage the call caused is rolled up into the request it was made for. */
export function callResult(call: CallState, outcome: PendingOutcome, messageId: string | undefined): CallResult {
  const { correlationId } = call;
  const latencyMs = performance.now() - call.started;
  const result: CallResult = outcome.ok
    ? { status: 'ok', response: outcome.data, correlationId, latencyMs }
    : { status: statusForError(outcome.error), error: outcome.error, correlationId, latencyMs };
  if (messageId !== undefined) result.messageId = messageId;
  if (outcome.usage !== undefined) {
    result.usage = outcome.usage;
    // Rolled up: the handler this call was made from answers with it included.
    if (call.parent) recordUsage(call.parent, outcome.usage);
  }
  return result;
}

function permission(core: CallerCore, call: CallState): RpcError | undefined {
  if (core.permissions(requestPermissionKey(call.to, call.capability))) return undefined;
  return new RpcError('EAGENTRPC_PERMISSION_DENIED', `${core.uri} may not call ${call.to}/${call.capability}`, { details: { to: call.to, capability: call.capability } });
}

function route(core: CallerCore, call: CallState): RpcError | undefined {
  try {
    const peer = core.peers.resolve(call.to, core.outbound, core.tenantId);
    call.peer = peer;
    const broker = peer.outbound.brokerEndpoint;
    call.route = broker === undefined ? { kind: peer.outbound.kind, topic: peer.topic } : { kind: peer.outbound.kind, topic: peer.topic, broker };
    return undefined;
  } catch (error) {
    return toRpcError(error);
  }
}

function guard(core: CallerCore, call: CallState): RpcError | undefined {
  const { parent, to } = call;
  const flow = parent ? core.guard.childCall(parent, to, core.clock.now()) : core.guard.startFlow(to, core.clock.now());
  if ('violation' in flow) {
    reportGuardRejection(core, flow.violation, flow.from, flow.to, call.correlationId);
    return guardError(flow.violation, flow.from, flow.to);
  }
  if (parent) core.metrics.agentCall?.(flow.depth);
  if (flow.idleHops !== undefined) reportIdleHops(core, flow.idleHops, core.agentId, agentIdOf(to), call.correlationId);
  call.flowHeader = flow.header;
  return undefined;
}

/** A call made inside a flow that has spent its token or cost budget is refused, like the guard's other rules. */
function flowBudget(core: CallerCore, call: CallState): RpcError | undefined {
  if (!call.parent) return undefined;
  const spent = flowSpentAt(call.parent);
  const overBudget = core.guard.checkSpent(spent);
  if (overBudget) {
    reportGuardRejection(core, overBudget, core.agentId, agentIdOf(call.to), call.correlationId);
    return guardError(overBudget, core.agentId, agentIdOf(call.to));
  }
  call.spent = spent;
  return undefined;
}

function buildEnvelope(core: CallerCore, call: CallState): undefined {
  const { parent, peer } = call;
  const messageId = newMessageId();
  const envelope: AgentRpcEnvelope = {
    version: 1,
    kind: call.mode === 'fire-and-forget' ? 'event' : 'request',
    messageId,
    correlationId: call.correlationId,
    from: core.uri,
    to: call.to,
    capability: call.capability,
    deadline: Math.min(core.clock.now() + call.timeoutMs, parent?.deadline ?? Number.POSITIVE_INFINITY),
    payload: call.payload,
  };
  if (parent) envelope.causedBy = parent.messageId;
  if (call.mode !== 'fire-and-forget') envelope.replyTo = core.replyTo.get(peer!.outbound.kind);
  if (peer!.tenantId !== undefined) envelope.tenantId = peer!.tenantId;
  // Decided by the tracing stage when there is one; else a child of the caller's own
  // traceparent (it runs inside a traced service) or of the request being handled.
  const traceparent = call.traceparent ?? childTraceparent(call.headers?.[TRACEPARENT_HEADER] ?? parent?.headers?.[TRACEPARENT_HEADER]);
  // Without headers of the caller's own, written in RFC 8785 order for the encoder.
  envelope.headers =
    call.headers === undefined ? { [FLOW_HEADER]: call.flowHeader, [TRACEPARENT_HEADER]: traceparent } : { ...call.headers, [TRACEPARENT_HEADER]: traceparent, [FLOW_HEADER]: call.flowHeader };
  if (call.spent !== undefined) envelope.headers[FLOW_USAGE_HEADER] = encodeUsage(call.spent);
  call.envelope = envelope;
  return undefined;
}
