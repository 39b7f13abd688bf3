/**
 * A hand-written yes/no check of the v1 schema for values fresh from `JSON.parse`.
 *
 * Running the zod schema costs about as much as parsing the bytes, and nearly every
 * envelope a receiver sees is valid. This check answers "certainly valid" without
 * allocating; anything else (including everything it is unsure about) goes to the zod
 * schema, which stays the authority and produces the reason code. So this function may
 * reject what zod accepts, but must never accept what zod rejects; a test feeds both the
 * fixtures, the unit cases and the fuzz corpus to keep it that way.
 *
 * Only valid for JSON.parse output: plain objects, no symbols, no undefined values.
 */
import {
  AGENT_URI_RE,
  CAPABILITY_RE,
  ENVELOPE_VERSION,
  MESSAGE_ID_RE,
  REPLY_TO_RE,
  TENANT_ID_RE,
  type AgentRpcEnvelope,
} from './schema.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

function matches(value: unknown, pattern: RegExp): boolean {
  return typeof value === 'string' && pattern.test(value);
}

// The number of own enumerable keys (what Object.keys(record).length is) without the array
// Object.keys allocates: for…in reads V8's enum cache, and JSON.parse objects have only
// own, enumerable string keys, so the ownership check never skips one of theirs.
function countKeys(record: Json): number {
  let count = 0;
  for (const key in record) if (Object.hasOwn(record, key)) count++;
  return count;
}

function acceptsAuth(auth: unknown): boolean {
  if (!isRecord(auth)) return false;
  const keys = countKeys(auth);
  switch (auth.kind) {
    case 'internal':
      return keys === 1;
    case 'hmac':
      return keys === 3 && isNonEmptyString(auth.keyId) && isNonEmptyString(auth.signature);
    case 'oidc':
      if (!isNonEmptyString(auth.token)) return false;
      if (auth.keyId === undefined) return keys === 2;
      return keys === 3 && isNonEmptyString(auth.keyId);
    case 'oauth2-client':
      if (!isNonEmptyString(auth.token)) return false;
      if (auth.scope === undefined) return keys === 2;
      return keys === 3 && typeof auth.scope === 'string';
    default:
      return false;
  }
}

function acceptsHeaders(headers: unknown): boolean {
  if (!isRecord(headers) || Object.getPrototypeOf(headers) !== Object.prototype) return false;
  for (const key in headers) if (typeof headers[key] !== 'string') return false;
  return true;
}

export function acceptsParsedEnvelope(value: unknown): value is AgentRpcEnvelope {
  if (!isRecord(value)) return false;
  const e = value;
  if (e.version !== ENVELOPE_VERSION) return false;
  if (e.kind !== 'request' && e.kind !== 'response' && e.kind !== 'event') return false;
  if (!matches(e.messageId, MESSAGE_ID_RE) || !matches(e.correlationId, MESSAGE_ID_RE)) return false;
  if (!matches(e.from, AGENT_URI_RE) || !matches(e.to, AGENT_URI_RE)) return false;
  if (!matches(e.capability, CAPABILITY_RE)) return false;
  if (e.payload === undefined) return false;
  // version, kind, messageId, correlationId, from, to, capability, payload
  let expected = 8;
  if (e.causedBy !== undefined) {
    if (!matches(e.causedBy, MESSAGE_ID_RE)) return false;
    expected++;
  }
  if (e.replyTo !== undefined) {
    if (!matches(e.replyTo, REPLY_TO_RE)) return false;
    expected++;
  }
  if (e.deadline !== undefined) {
    if (typeof e.deadline !== 'number' || !Number.isSafeInteger(e.deadline) || e.deadline < 0) return false;
    expected++;
  }
  if (e.tenantId !== undefined) {
    if (!matches(e.tenantId, TENANT_ID_RE)) return false;
    expected++;
  }
  if (e.headers !== undefined) {
    if (!acceptsHeaders(e.headers)) return false;
    expected++;
  }
  if (e.auth !== undefined) {
    if (!acceptsAuth(e.auth)) return false;
    expected++;
  }
  // Any other key is an unknown field: leave the verdict to the schema.
  return countKeys(e) === expected;
}
