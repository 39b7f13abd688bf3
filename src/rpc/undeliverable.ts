import { decodeEnvelope } from '../envelope/index.js';
import { RpcError, toRpcError } from '../errors.js';
import type { Delivery, TransportKind } from '../transport.js';
import { deadLetter } from './dead-letter.js';
import type { InboxCore } from './node-core.js';

/** A call a gateway accepted but could not carry to the end. */
export interface UndeliverableMessage {
  /** The peer's address the call went to (a remote node's name, an A2A agent's URL). */
  readonly topic: string;
  readonly body: Uint8Array;
  /** An RpcError with a stable code (EAGENTRPC_REMOTE_*). */
  readonly error: Error & { readonly code: string };
}

/**
 * A message a gateway accepted but could not carry to the end (the
 * remote node failed, timed out, was unreachable). The caller waiting for it gets the
 * error; when nobody waits (an event, an async call already settled) it is dead-lettered
 * as `remote-failed`, so it can be inspected and requeued. A request the caller itself
 * abandoned is only logged: it was cancelled on purpose.
 */
export async function handleUndeliverable(core: InboxCore, kind: TransportKind, failure: UndeliverableMessage): Promise<void> {
  const error = toRpcError(failure.error);
  const decoded = decodeEnvelope(failure.body, core.limits);
  const envelope = decoded.ok ? decoded.envelope : undefined;
  if (envelope && core.registry.settle(envelope.messageId, { ok: false, error })) return;
  if (error.code === 'EAGENTRPC_ABANDONED' && error.details?.cancelled === true) {
    core.logger.debug({ messageId: envelope?.messageId, topic: failure.topic }, 'remote work cancelled after the caller stopped waiting');
    return;
  }
  const delivery: Delivery = {
    body: failure.body,
    key: undefined,
    coordinates: { topic: failure.topic, deliveryId: envelope?.messageId ?? 'unknown' },
    attempt: 1,
    ack: () => undefined,
    nack: () => undefined,
    defer: () => undefined,
  };
  const detail = error instanceof RpcError ? error.message : String(error);
  await deadLetter(core, delivery, kind, { kind: 'remote-failed', reason: error.code, detail, error: error.toWire() }, envelope);
}
