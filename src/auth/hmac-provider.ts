import { timingSafeEqual } from 'node:crypto';
import { canonicalSigningBytes, type AgentRpcEnvelope } from '../envelope/index.js';
import { systemClock, type Clock } from '../clock.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { AuthProvider, AuthVerdict, VerifyContext } from './provider.js';
import { KeyedHmacSha256 } from './keyed-hmac.js';
import { deny } from './reasons.js';
import type { ReplayCheck, SharedReplayStore } from './replay-guard.js';
import { ReplayMemory } from './replay-memory.js';

/** Header carrying the signing time (ms since epoch); covered by the signature. */
export const SIGNED_AT_HEADER = 'agent-rpc-signed-at';

const SIGNATURE_BYTES = 32;
const MIN_KEY_BYTES = 32;

export interface HmacAuthOptions {
  /** keyId → key. Several may be active at once so keys can be rotated without downtime. */
  readonly keys: ReadonlyMap<string, Uint8Array>;
  /** The key new envelopes are signed with. Omit on a node that only verifies. */
  readonly signingKeyId?: string;
  /** Envelopes signed further than this from now are `stale`. Default 300,000 ms. */
  readonly windowMs?: number;
  /** Most accepted envelopes remembered for replay detection. Default 1,000,000. */
  readonly maxReplayEntries?: number;
  /**
   * Replay memory shared with the agent's other replicas (RedisReplayStore), so a replay
   * sent to another replica within the window is `replayed` too. This process's own memory
   * answers first and is the fallback when the store fails (fail open).
   */
  readonly replayStore?: SharedReplayStore;
  /** Hears each time the shared store failed or was slow and an envelope was judged on local memory only. */
  readonly onReplayStoreError?: (error: unknown) => void;
  readonly clock?: Clock;
}

/**
 * HMAC-SHA256 over `canonicalizeForSigning(envelope)` (everything but `auth`, RFC 8785),
 * after stamping the signing time into the headers. Each attach stamps a fresh time, so a
 * retried request (same messageId) is a new signature, not a replay; the receiver's dedupe
 * recognises it. The same signed bytes in a new broker message within the window are a
 * replay; after the window they are stale.
 */
export function hmacAuth(options: HmacAuthOptions): AuthProvider {
  // Each key absorbed once: signing and verifying only copy its hash states.
  const keys = new Map([...checkKeys(options)].map(([keyId, key]) => [keyId, new KeyedHmacSha256(key)]));
  // One verdict per key, shared by every envelope it accepts (verdicts are only read).
  const accepted = new Map([...keys.keys()].map((keyId): [string, AuthVerdict] => [keyId, Object.freeze({ ok: true, subject: `hmac:${keyId}` })]));
  const windowMs = options.windowMs ?? 300_000;
  if (!Number.isInteger(windowMs) || windowMs < 1000) throw new RangeError('hmacAuth: windowMs must be an integer of at least 1000');
  const clock = options.clock ?? systemClock;
  const replays = new ReplayMemory(options.maxReplayEntries ?? 1_000_000, options.replayStore, options.onReplayStoreError);
  const signingKeyId = options.signingKeyId;
  const signingKey = signingKeyId === undefined ? undefined : keys.get(signingKeyId);

  return {
    name: 'hmac',
    attach(envelope: AgentRpcEnvelope): AgentRpcEnvelope {
      if (signingKeyId === undefined || signingKey === undefined) {
        throw new TypeError('hmacAuth: this provider has no signingKeyId, it can only verify');
      }
      const stamped = stampedCopy(envelope, String(clock.now()));
      const signature = signingKey.base64url('', canonicalSigningBytes(stamped));
      // Members in canonical order, so the encoder writes this object as it is.
      stamped.auth = { keyId: signingKeyId, kind: 'hmac', signature };
      return stamped;
    },
    verify(envelope: AgentRpcEnvelope, context: VerifyContext): MaybePromise<AuthVerdict> {
      const auth = envelope.auth;
      if (auth === undefined) return deny('missing-auth', 'this agent requires hmac-signed envelopes');
      if (auth.kind !== 'hmac') return deny('wrong-kind', `this agent requires hmac, the envelope carries ${auth.kind}`);
      const key = keys.get(auth.keyId);
      if (key === undefined) return deny('unknown-key', `no key with id ${JSON.stringify(auth.keyId)}`);
      // Bytes written in canonical form (by any correct RFC 8785 writer) are hashed as they
      // came; anything else is canonicalized. Either way the signature covers the RFC 8785
      // text, so the two paths accept exactly the same envelopes.
      const expected = context.signedTail === undefined ? key.base64url('', canonicalSigningBytes(envelope)) : key.base64url('{', context.signedTail);
      if (!sameText(auth.signature, expected)) {
        // A signature spelled otherwise (padding, say) is compared as the bytes it decodes to.
        const given = Buffer.from(auth.signature, 'base64url');
        // Length first: timingSafeEqual throws on unequal lengths, and a truncated signature is simply wrong.
        if (given.length !== SIGNATURE_BYTES) return deny('bad-signature', `signature is ${given.length} bytes, expected ${SIGNATURE_BYTES}`);
        if (!timingSafeEqual(given, Buffer.from(expected, 'base64url'))) return deny('bad-signature', 'signature does not match the envelope');
      }
      const signedAtText = envelope.headers?.[SIGNED_AT_HEADER];
      const signedAt = signedAtText === undefined ? Number.NaN : Number(signedAtText);
      if (!Number.isSafeInteger(signedAt)) return deny('malformed-token', `header ${SIGNED_AT_HEADER} is missing or not a time`);
      const now = clock.now();
      if (Math.abs(now - signedAt) > windowMs) {
        return deny('stale', `signed ${Math.round((now - signedAt) / 1000)} s from now, outside the ${windowMs / 1000} s window`);
      }
      const seen = replays.check(`${envelope.messageId}|${signedAt}`, context.deliveryId, signedAt + windowMs, now);
      // No closure on the common path: only a shared store's answer waits.
      const verdict = accepted.get(auth.keyId)!;
      if (typeof seen === 'string') return replayVerdict(seen, envelope.messageId, signedAt, verdict);
      return seen.then((shared) => replayVerdict(shared, envelope.messageId, signedAt, verdict));
    },
  };
}

/**
 * A copy of the envelope with the signing time in its headers and no auth, so the caller's
 * envelope keeps no stale signature. Built member by member: on Node 20 a spread followed by
 * members the source lacks makes a dictionary-mode object (about 650 bytes a copy, against
 * under 200 this way). Only the schema's fields are copied: nothing else is written or signed.
 */
function stampedCopy(envelope: AgentRpcEnvelope, signedAt: string): AgentRpcEnvelope {
  const headers: Record<string, string> = {};
  const source = envelope.headers;
  if (source !== undefined) for (const name in source) if (Object.hasOwn(source, name)) headers[name] = source[name]!;
  headers[SIGNED_AT_HEADER] = signedAt;
  // auth is set by the caller once the signature exists (a member replaced, not added or
  // deleted: either would change the object's shape).
  return {
    auth: undefined,
    capability: envelope.capability,
    causedBy: envelope.causedBy,
    correlationId: envelope.correlationId,
    deadline: envelope.deadline,
    from: envelope.from,
    headers,
    kind: envelope.kind,
    messageId: envelope.messageId,
    payload: envelope.payload,
    replyTo: envelope.replyTo,
    tenantId: envelope.tenantId,
    to: envelope.to,
    version: envelope.version,
  };
}

/** Equality in time that depends on the lengths only, not on where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function checkKeys(options: HmacAuthOptions): ReadonlyMap<string, Uint8Array> {
  if (!(options?.keys instanceof Map) || options.keys.size === 0) throw new TypeError('hmacAuth: keys must be a non-empty Map of keyId to key');
  for (const [keyId, key] of options.keys) {
    if (!(key instanceof Uint8Array) || key.length < MIN_KEY_BYTES) {
      throw new RangeError(`hmacAuth: key ${JSON.stringify(keyId)} must be at least ${MIN_KEY_BYTES} bytes`);
    }
  }
  if (options.signingKeyId !== undefined && !options.keys.has(options.signingKeyId)) {
    throw new TypeError(`hmacAuth: signingKeyId ${JSON.stringify(options.signingKeyId)} is not in keys`);
  }
  return options.keys;
}

function replayVerdict(seen: ReplayCheck, messageId: string, signedAt: number, accepted: AuthVerdict): AuthVerdict {
  return seen === 'replayed' ? deny('replayed', `message ${messageId} signed at ${signedAt} was already accepted`) : accepted;
}
