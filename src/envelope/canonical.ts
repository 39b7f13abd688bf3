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
    // The default sort compares UTF-16 code units, which is what JCS prescribes.
    const keys = Object.keys(record).sort();
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
  const text = write(value, '', []);
  if (text === undefined) throw fail(`a value of type ${typeof value} has no JSON representation`);
  return finish(text);
}

// Every field but `auth`, pre-sorted and pre-quoted: the envelope's top level is written
// without Object.keys/sort, and only schema fields are covered, exactly what the encoder
// writes (an extra property on the object would never reach the verifier).
const SIGNED_FIELDS = ENVELOPE_FIELDS.filter((field) => field !== 'auth').sort();
const SIGNED_PREFIXES = SIGNED_FIELDS.map((field) => `${JSON.stringify(field)}:`);

/**
 * The bytes an envelope signature covers: JCS over the envelope without `auth` (the
 * signature lives there), as UTF-8.
 */
export function canonicalizeForSigning(envelope: AgentRpcEnvelope): Uint8Array {
  const record = envelope as unknown as Record<string, unknown>;
  const ancestors: object[] = [];
  let out = '{';
  for (let i = 0; i < SIGNED_FIELDS.length; i++) {
    const field = SIGNED_FIELDS[i]!;
    const member = write(record[field], field, ancestors);
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += SIGNED_PREFIXES[i]! + member;
  }
  return Buffer.from(finish(`${out}}`), 'utf8');
}
