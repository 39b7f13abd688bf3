import { deny, type AuthVerdict } from '../auth/index.js';
import { RpcError } from '../errors.js';
import { isPromise, type MaybePromise } from '../maybe-promise.js';
import { recordAuthDecision } from './auth-decision.js';
import { verifierFor, type InboxCore } from './node-core.js';
import type { Receipt } from './receipt.js';

/**
 * Verifies the sender (the peer's provider when it verifies, else the node's). Fails
 * closed: a provider that throws or rejects denies. Every decision is audited.
 */
export function verifyStage(core: InboxCore): (r: Receipt) => MaybePromise<boolean | void> {
  return (r) => {
    const verdict = verify(core, r);
    return isPromise(verdict) ? verdict.then<boolean | void>((v) => admitted(r, v)) : admitted(r, verdict);
  };
}

function admitted(r: Receipt, verdict: AuthVerdict): true | Promise<void> {
  if (verdict.ok) return true;
  const error = new RpcError('EAGENTRPC_AUTH_REJECTED', `authentication failed: ${verdict.reason}`, { details: { reason: verdict.reason } });
  return r.reject({ kind: 'auth-rejected', reason: verdict.reason, detail: verdict.detail }, error);
}

function verify(core: InboxCore, r: Receipt): MaybePromise<AuthVerdict> {
  const envelope = r.request;
  const provider = verifierFor(core, envelope.from);
  const decide = (verdict: AuthVerdict): AuthVerdict => {
    recordAuthDecision(core, provider.name, envelope, verdict);
    return verdict;
  };
  const denyThrown = (error: unknown): AuthVerdict => decide(deny('verifier-error', error instanceof Error ? error.message : String(error)));
  try {
    const verdict = provider.verify(envelope, { deliveryId: r.delivery.coordinates.deliveryId, signedTail: r.signedTail });
    return isPromise(verdict) ? verdict.then(decide, denyThrown) : decide(verdict);
  } catch (error) {
    return denyThrown(error);
  }
}
