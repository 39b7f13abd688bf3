import { decodeEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { guardError } from '../guard/index.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import { recordTenantRejection } from './auth-decision.js';
import { CANCEL_CAPABILITY, cancelledRequestId } from './cancellations.js';
import { dispatchRequest } from './dispatch.js';
import { reportGuardRejection } from './guard-report.js';
import type { HandlerInvoker } from './middleware.js';
import type { InboxCore } from './node-core.js';
import type { Receipt } from './receipt.js';
import { Semaphore } from './semaphore.js';
import { settleResponse } from './settle-response.js';
import type { Stage } from './stage-runner.js';
import { verifyStage } from './verify-stage.js';

export type ReceiveStage = Stage<Receipt>;

/** The node's handlers by capability: of its requests, and of its events. */
export interface Invokers {
  readonly requests: ReadonlyMap<string, HandlerInvoker>;
  readonly events: ReadonlyMap<string, HandlerInvoker>;
}

/**
 * The receive path as the ordered list of stages a node runs on every delivery, assembled
 * once from what the node has on: the process span only with a tracer, the shared guard
 * only with a shared guard store, the input schema check only where capabilities publish schemas.
 * Every stage either hands the receipt on (`true`) or ends the delivery through it.
 */
export function receiveStages(core: InboxCore, invokers: Invokers): ReceiveStage[] {
  const slots = new Semaphore(core.limits.concurrency);
  const stages: (ReceiveStage | false)[] = [
    { name: 'decode', run: (r) => decode(core, r) },
    core.tracing.recording && { name: 'trace', run: (r) => startProcessSpan(core, r) },
    { name: 'tenant', run: (r) => tenant(core, r) },
    { name: 'addressee', run: (r) => addressee(core, r) },
    { name: 'verify', run: verifyStage(core) },
    { name: 'settle', run: (r) => (r.request.kind === 'response' ? settleResponse(core, r) : true) },
    { name: 'dedupe', run: (r) => claim(core, r) },
    { name: 'guard', run: (r) => guard(core, r) },
    core.guard.store !== undefined && { name: 'guard-shared', run: (r) => guardShared(core, r) },
    { name: 'deadline', run: (r) => deadline(core, r) },
    { name: 'event', run: (r) => (r.request.kind === 'event' ? event(core, invokers.events, r) : true) },
    { name: 'capability', run: (r) => capability(core, invokers.requests, r) },
    core.schemas.hasInputSchemas && { name: 'input-schema', run: (r) => inputSchema(core, r) },
    { name: 'dispatch', run: (r) => dispatch(core, slots, r) },
  ];
  return stages.filter((stage): stage is ReceiveStage => stage !== false);
}

/** Bytes → envelope under the node's limits (unless whoever handed it in decoded it already). */
function decode(core: InboxCore, r: Receipt): boolean | Promise<void> {
  if (r.envelope) return true;
  const result = decodeEnvelope(r.delivery.body, core.limits);
  if (!result.ok) return r.reject({ kind: 'decode-failed', reason: result.reason, detail: result.detail });
  r.envelope = result.envelope;
  r.signedTail = result.signedTail;
  return true;
}

function startProcessSpan(core: InboxCore, r: Receipt): true {
  const envelope = r.request;
  if (envelope.kind !== 'response') r.span = core.tracing.startProcess(envelope, r.source.system ?? r.source.kind, r.delivery.coordinates.topic, r.source.transport);
  return true;
}

function tenant(core: InboxCore, r: Receipt): true | Promise<void> {
  const envelope = r.request;
  if (envelope.tenantId === core.tenantId) return true;
  const detail = `envelope tenant ${envelope.tenantId ?? '(none)'} does not match bus scope ${core.tenantId ?? '(none)'}`;
  recordTenantRejection(core, envelope, detail);
  return r.reject({ kind: 'tenant-mismatch', reason: 'tenant-mismatch', detail });
}

function addressee(core: InboxCore, r: Receipt): true | Promise<void> {
  const { to } = r.request;
  if (to === core.uri) return true;
  return r.reject({ kind: 'misrouted', reason: 'wrong-recipient', detail: `envelope addressed to ${to} arrived at ${core.uri}` });
}

/** Claims the message in the dedupe store: a message already answered is answered again, one a live run holds waits. */
function claim(core: InboxCore, r: Receipt): MaybePromise<boolean | void> {
  const envelope = r.request;
  r.dedupeKey = core.dedupe.keyOf(envelope.messageId, r.delivery, r.source.kind);
  const claimed = core.dedupe.claim(r.dedupeKey);
  return isPromise(claimed) ? claimed.then<boolean | void>((c) => afterClaim(core, r, c)) : afterClaim(core, r, claimed);
}

type Claim = Awaited<ReturnType<InboxCore['dedupe']['claim']>>;

function afterClaim(core: InboxCore, r: Receipt, claimed: Claim): MaybePromise<boolean | void> {
  const envelope = r.request;
  if (claimed.state !== 'claimed') {
    core.metrics.duplicateSkipped?.(envelope.capability);
    if (core.logger.isLevelEnabled('debug')) {
      core.logger.debug({ messageId: envelope.messageId, correlationId: envelope.correlationId, state: claimed.state }, 'duplicate delivery not dispatched');
    }
    // Done: answered with the stored reply — even when the broker has given up on the
    // message, so a request already answered is never answered again with an error.
    if (claimed.state === 'done') return r.answer(claimed.reply);
    // A live run holds it (another replica, or this process): look again later without
    // spending an attempt — by then it is done (answer again) or its lease lapsed (run it).
    r.defer(claimed.leaseLeftMs);
    return false;
  }
  if (claimed.takenOverFrom) {
    core.logger.info({ messageId: envelope.messageId, correlationId: envelope.correlationId, previousLife: claimed.takenOverFrom.life }, 'claim of a previous life of this instance taken over');
  }
  if (r.delivery.exhausted) {
    // The broker stopped redelivering (each delivery outlived its ack timeout or crashed
    // its consumer) and nobody answered it: keep it in the DLQ and tell the caller.
    const error = new RpcError('EAGENTRPC_HANDLER_FAILED', `the broker gave up after ${r.delivery.attempt - 1} deliveries without an answer`, {
      details: { attempt: r.delivery.attempt },
    });
    return r.refuse({ kind: 'handler-failed', reason: 'max-deliver', error, deadLetter: 'always' });
  }
  return true;
}

function guard(core: InboxCore, r: Receipt): true | Promise<void> {
  const refused = core.guard.admit(r.request, core.clock.now());
  return refused ? refuseByGuard(core, r, refused) : true;
}

function guardShared(core: InboxCore, r: Receipt): Promise<boolean | void> {
  return core.guard.admitShared(r.request, core.clock.now()).then<boolean | void>((refused) => (refused ? refuseByGuard(core, r, refused) : true));
}

type GuardRefusal = NonNullable<ReturnType<InboxCore['guard']['admit']>>;

function refuseByGuard(core: InboxCore, r: Receipt, refused: GuardRefusal): Promise<void> {
  reportGuardRejection(core, refused.violation, refused.from, refused.to, r.request.correlationId);
  core.tracing.guardRefused(r.span, refused.violation.rule, refused.from, refused.to);
  return r.refuse({ kind: 'guard-rejected', reason: refused.violation.rule, error: guardError(refused.violation, refused.from, refused.to) });
}

function deadline(core: InboxCore, r: Receipt): true | Promise<void> {
  const { deadline } = r.request;
  if (deadline === undefined || deadline > core.clock.now()) return true;
  const error = new RpcError('EAGENTRPC_DEADLINE_EXCEEDED', `request arrived ${core.clock.now() - deadline} ms after its deadline`, { details: { deadline } });
  return r.refuse({ kind: 'deadline-expired', reason: 'deadline-expired', error });
}

/**
 * An event: `$cancel` aborts the request it names; every other event goes to the local bus
 * and, where its capability has an event handler, on through the input schema check to that
 * handler, like a request.
 */
function event(core: InboxCore, handlers: ReadonlyMap<string, HandlerInvoker>, r: Receipt): true | Promise<void> | void {
  const envelope = r.request;
  if (envelope.capability === CANCEL_CAPABILITY) {
    const requestId = cancelledRequestId(envelope);
    if (requestId !== undefined) core.cancellations.cancel(requestId, `by ${envelope.from}`, envelope.from);
    return r.answer(undefined);
  }
  core.bus.emit('agent.rpc.event', { envelope });
  r.invoke = handlers.get(envelope.capability);
  return r.invoke ? true : r.answer(undefined);
}

function capability(core: InboxCore, invokers: ReadonlyMap<string, HandlerInvoker>, r: Receipt): true | Promise<void> {
  // An event's handler was found by the event stage.
  if (r.invoke) return true;
  const { capability } = r.request;
  r.invoke = invokers.get(capability);
  if (r.invoke) return true;
  const error = new RpcError('EAGENTRPC_UNKNOWN_CAPABILITY', `${core.uri} has no capability ${capability}`, { details: { capability } });
  return r.refuse({ kind: 'unknown-capability', reason: 'no-handler', error, deadLetter: 'always' });
}

function inputSchema(core: InboxCore, r: Receipt): true | Promise<void> {
  const violation = core.schemas.check(r.request.capability, 'input', r.request.payload);
  return violation ? r.refuse({ kind: 'schema-violation', reason: 'input', error: violation, deadLetter: 'always' }) : true;
}

/** Runs the handler within the node's concurrency limit; above it, the delivery waits for a slot. */
function dispatch(core: InboxCore, slots: Semaphore, r: Receipt): Promise<void> | void {
  const slot = slots.acquire();
  if (slot) return slot.then(() => runInSlot(core, slots, r));
  return runInSlot(core, slots, r);
}

function runInSlot(core: InboxCore, slots: Semaphore, r: Receipt): Promise<void> | void {
  let running: Promise<void> | void;
  try {
    running = dispatchRequest(core, r);
  } catch (error) {
    slots.release();
    throw error;
  }
  if (!isPromise(running)) return slots.release();
  return running.finally(() => slots.release());
}
