/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the bytes that signatures cover.
 *
 * Signer and verifier must derive identical bytes from the same envelope even though key
 * order, whitespace and number spelling on the wire may differ. JCS fixes all three:
 * members sorted by UTF-16 code units at every depth, no whitespace, numbers as
 * ECMAScript Number-to-string, strings escaped minimally.
 *
 * Values are read the way JSON.stringify reads them (toJSON, boxed primitives, undefined
 * members omitted, undefined array slots as null), so a sender that canonicalizes the
 * object it is about to encode gets the same bytes as a receiver that canonicalizes what
 * it decoded. What JSON cannot carry faithfully throws TypeError instead: NaN, ±Infinity,
 * BigInt, cycles and unpaired surrogates.
 */
import { hasLoneSurrogateEscape } from './json-output.js';
import { UNORDERABLE, ordered, sortedKeys } from './canonical-order.js';
import { ENVELOPE_FIELDS, type AgentRpcEnvelope } from './schema.js';

function fail(message: string): TypeError {
  return new TypeError(`canonicalJson: ${message}`);
}

/** Returns undefined for values JSON omits (undefined, functions, symbols). */
function write(input: unknown, key: string, ancestors: object[]): string | undefined {
  let value = input;
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
      // Same escaping as JCS for well-formed strings; unpaired surrogates are caught once
      // on the finished text (see canonicalJson).
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw fail(`${String(value)} has no JSON representation`);
      // Number-to-string is exactly the JCS number rule; String(-0) is already "0".
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw fail('BigInt has no JSON representation');
    case 'object':
      if (value === null) return 'null';
      return writeObject(value, ancestors);
    default:
      return undefined;
  }
}

function writeObject(value: object, ancestors: object[]): string | undefined {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return write(value.valueOf(), '', ancestors);
  }
  if (ancestors.includes(value)) throw fail('cyclic structure');
  ancestors.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += write(value[i], String(i), ancestors) ?? 'null';
    }
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    // By UTF-16 code units, as JCS prescribes.
    const keys = sortedKeys(record);
    out = '{';
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const member = write(record[key], key, ancestors);
      if (member === undefined) continue;
      out += first ? JSON.stringify(key) : `,${JSON.stringify(key)}`;
      out += `:${member}`;
      first = false;
    }
    out += '}';
  }
  ancestors.pop();
  return out;
}

function finish(text: string): string {
  if (hasLoneSurrogateEscape(text)) throw fail('a string contains an unpaired UTF-16 surrogate');
  return text;
}

/** RFC 8785 canonical JSON text of any JSON-representable value. */
export function canonicalJson(value: unknown): string {
  const inOrder = ordered(value, 0);
  const text = inOrder === UNORDERABLE ? write(value, '', []) : (JSON.stringify(inOrder) as string | undefined);
  if (text === undefined) throw fail(`a value of type ${typeof value} has no JSON representation`);
  return finish(text);
}

// Every field but `auth`, pre-sorted and pre-quoted, for the general writer.
const SIGNED_FIELDS = ENVELOPE_FIELDS.filter((field) => field !== 'auth').sort();
const SIGNED_PREFIXES = SIGNED_FIELDS.map((field) => `${JSON.stringify(field)}:`);

function isTextOrAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isFiniteOrAbsent(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The JCS text of the envelope's schema fields (anything else on the object is never
 * written nor signed), without `auth` when `withAuth` is false: what signatures cover.
 * `auth` sorts first, so the two texts differ only by that leading member.
 */
function canonicalEnvelopeText(envelope: AgentRpcEnvelope, withAuth: boolean): string {
  const auth = withAuth && envelope.auth !== undefined ? ordered(envelope.auth, 1) : undefined;
  const headers = envelope.headers === undefined ? undefined : ordered(envelope.headers, 1);
  const payload = ordered(envelope.payload, 1);
  const plain =
    auth !== UNORDERABLE &&
    headers !== UNORDERABLE &&
    payload !== UNORDERABLE &&
    isTextOrAbsent(envelope.capability) &&
    isTextOrAbsent(envelope.causedBy) &&
    isTextOrAbsent(envelope.correlationId) &&
    isTextOrAbsent(envelope.from) &&
    isTextOrAbsent(envelope.kind) &&
    isTextOrAbsent(envelope.messageId) &&
    isTextOrAbsent(envelope.replyTo) &&
    isTextOrAbsent(envelope.tenantId) &&
    isTextOrAbsent(envelope.to) &&
    isFiniteOrAbsent(envelope.deadline) &&
    isFiniteOrAbsent(envelope.version);
  if (!plain) return writeEnvelope(envelope, withAuth);
  // One native stringify of an object built in sorted member order; absent (undefined)
  // members are left out by JSON.stringify as by JCS.
  return finish(
    JSON.stringify({
      auth,
      capability: envelope.capability,
      causedBy: envelope.causedBy,
      correlationId: envelope.correlationId,
      deadline: envelope.deadline,
      from: envelope.from,
      headers,
      kind: envelope.kind,
      messageId: envelope.messageId,
      payload,
      replyTo: envelope.replyTo,
      tenantId: envelope.tenantId,
      to: envelope.to,
      version: envelope.version,
    }),
  );
}

/** The general writer's way to the same text, for what `ordered` cannot take. */
function writeEnvelope(envelope: AgentRpcEnvelope, withAuth: boolean): string {
  const record = envelope as unknown as Record<string, unknown>;
  let out = '{';
  if (withAuth && envelope.auth !== undefined) out += `"auth":${canonicalJson(envelope.auth)}`;
  for (let i = 0; i < SIGNED_FIELDS.length; i++) {
    const field = SIGNED_FIELDS[i]!;
    const member = write(record[field], field, []);
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += SIGNED_PREFIXES[i]! + member;
  }
  return finish(`${out}}`);
}

// The envelope whose signing text was written last, and that text. The send path signs
// and then encodes the same object: the encoder puts `auth` in front of this text instead
// of writing it again. An envelope changed after signing no longer matches its signature
// anyway; the bytes sent are those that were signed.
let lastSigned: AgentRpcEnvelope | undefined;
let lastSigningText = '';

/** The JCS text an envelope signature covers: everything but `auth` (the signature lives there). */
export function canonicalSigningText(envelope: AgentRpcEnvelope): string {
  const text = canonicalEnvelopeText(envelope, false);
  lastSigned = envelope;
  lastSigningText = text;
  return text;
}

/** The JCS text of the whole envelope: the wire form (see encodeEnvelope). */
export function canonicalWireText(envelope: AgentRpcEnvelope): string {
  if (envelope === lastSigned && envelope.auth !== undefined) {
    lastSigned = undefined;
    return `{"auth":${canonicalJson(envelope.auth)},${lastSigningText.slice(1)}`;
  }
  return canonicalEnvelopeText(envelope, true);
}

/** `canonicalSigningText` as UTF-8 bytes. */
export function canonicalizeForSigning(envelope: AgentRpcEnvelope): Uint8Array {
  return Buffer.from(canonicalEnvelopeText(envelope, false), 'utf8');
}
