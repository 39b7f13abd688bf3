/**
 * Strict decoding of untrusted bytes into an AgentRpcEnvelope v1.
 *
 * This is the first code that touches bytes from the network, so it never throws on any
 * input: every rejection comes back as data with one stable reason code, which the inbox
 * turns into a DLQ record and a metric label. Only caller mistakes (bad limits, something
 * that is not a Uint8Array) throw.
 */
import { acceptsParsedEnvelope } from './fast-accept.js';
import { scanForm, scanJson } from './json-scan.js';
import { ENVELOPE_ID_FIELDS, ENVELOPE_VERSION, envelopeSchema, type AgentRpcEnvelope } from './schema.js';

/** Reason codes, in the order they are checked: the first that applies is reported. */
export const DECODE_FAILURE_REASONS = [
  'too-large',
  'invalid-utf8',
  'too-deep',
  'invalid-json',
  'duplicate-key',
  'forbidden-key',
  'lone-surrogate',
  'not-an-object',
  'unsupported-version',
  'unknown-field',
  'invalid-id',
  'invalid-field',
] as const;
export type DecodeFailureReason = (typeof DECODE_FAILURE_REASONS)[number];

export type DecodeResult =
  | {
      ok: true;
      envelope: AgentRpcEnvelope;
      /**
       * Present when the bytes were already the RFC 8785 text of the envelope with `auth` as
       * its (sorted, so first) member: the bytes after that member's comma. `{` followed by
       * them is exactly `canonicalizeForSigning(envelope)`, so a verifier can hash them as
       * received. Envelopes from other writers (whitespace, other member order or number
       * spelling) decode just the same, without it.
       */
      signedTail?: Uint8Array;
    }
  | { ok: false; reason: DecodeFailureReason; detail: string };

export interface DecodeLimits {
  /** Largest accepted input, in bytes. Default 1 MiB. */
  maxBytes?: number;
  /** Deepest accepted nesting of objects and arrays; the envelope itself is depth 1. Default 64. */
  maxDepth?: number;
}

export const DEFAULT_MAX_BYTES = 1_048_576;
export const DEFAULT_MAX_DEPTH = 64;

// fatal: malformed UTF-8 (overlong forms, CESU surrogates, truncation) is rejected instead
// of being silently replaced by U+FFFD, which would let two byte strings decode alike.
// ignoreBOM: a BOM is kept as U+FEFF, which the JSON scan then rejects (RFC 8259 §8.1).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fail(reason: DecodeFailureReason, detail: string): DecodeResult {
  return { ok: false, reason, detail };
}

function limitOf(name: keyof DecodeLimits, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`decodeEnvelope: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function decodeEnvelope(bytes: Uint8Array, limits?: DecodeLimits): DecodeResult {
  const maxBytes = limitOf('maxBytes', limits?.maxBytes, DEFAULT_MAX_BYTES);
  const maxDepth = limitOf('maxDepth', limits?.maxDepth, DEFAULT_MAX_DEPTH);
  if (!(bytes instanceof Uint8Array)) throw new TypeError('decodeEnvelope: bytes must be a Uint8Array');
  try {
    if (bytes.byteLength > maxBytes) {
      return fail('too-large', `envelope is ${bytes.byteLength} bytes, the limit is ${maxBytes}`);
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return fail('invalid-utf8', 'envelope bytes are not well-formed UTF-8');
    }
    // Only a signed envelope (auth, sorted first) needs to know whether it came canonical.
    const signed = startsWithAuth(bytes);
    const issue = scanJson(bytes, maxDepth, signed);
    if (issue !== undefined) return fail(issue.reason, scanDetail(issue.reason, issue.offset, maxDepth));
    const value: unknown = JSON.parse(text);
    // Nearly every envelope is valid: confirm that cheaply, and let the schema explain
    // the rest.
    if (acceptsParsedEnvelope(value)) {
      return signed && scanForm.canonical && scanForm.firstMemberEnd > 0
        ? { ok: true, envelope: value, signedTail: bytes.subarray(scanForm.firstMemberEnd + 1) }
        : { ok: true, envelope: value };
    }
    return validateEnvelope(value);
  } catch (error) {
    // Unreachable by design (the scan admits only what JSON.parse accepts); kept so that
    // a defect here still yields a DLQ record instead of crashing the consumer.
    return fail('invalid-json', `envelope could not be decoded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const AUTH_FIRST = Buffer.from('{"auth":', 'latin1');

function startsWithAuth(bytes: Uint8Array): boolean {
  if (bytes.length < AUTH_FIRST.length) return false;
  for (let i = 0; i < AUTH_FIRST.length; i++) if (bytes[i] !== AUTH_FIRST[i]) return false;
  return true;
}

function scanDetail(reason: DecodeFailureReason, offset: number, maxDepth: number): string {
  switch (reason) {
    case 'too-deep':
      return `nesting exceeds ${maxDepth} levels (at byte ${offset})`;
    case 'duplicate-key':
      return `duplicate object key at byte ${offset}`;
    case 'forbidden-key':
      return `forbidden object key (__proto__, constructor or prototype) at byte ${offset}`;
    case 'lone-surrogate':
      return `unpaired UTF-16 surrogate escape at byte ${offset}`;
    default:
      return `not valid JSON (RFC 8259) at byte ${offset}`;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 32 ? `${value.slice(0, 32)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a value of type ${typeof value}`;
}

const RANK: Readonly<Record<string, number>> = { 'unknown-field': 0, 'invalid-id': 1, 'invalid-field': 2 };

/**
 * The schema step alone, for values that are already parsed (and therefore already past
 * the size, depth, duplicate-key and forbidden-key checks of `decodeEnvelope`).
 */
export function validateEnvelope(value: unknown): DecodeResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('not-an-object', `the top level must be a JSON object, got ${describe(value)}`);
  }
  const record = value as Record<string, unknown>;
  // Checked before the schema so that a v2 envelope is reported as such and not as a
  // pile of unknown fields.
  if (Object.hasOwn(record, 'version') && record.version !== ENVELOPE_VERSION) {
    return fail('unsupported-version', `envelope version ${describe(record.version)} is not supported by this v1 reader`);
  }
  const parsed = envelopeSchema.safeParse(record);
  if (parsed.success) return { ok: true, envelope: parsed.data };

  let best: { reason: DecodeFailureReason; detail: string } | undefined;
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String).join('.');
    let reason: DecodeFailureReason;
    let detail: string;
    if (issue.code === 'unrecognized_keys') {
      reason = 'unknown-field';
      detail = `unknown field ${issue.keys.map((key) => (path === '' ? key : `${path}.${key}`)).join(', ')}`;
    } else {
      reason = ENVELOPE_ID_FIELDS.has(String(issue.path[0])) && issue.path.length === 1 ? 'invalid-id' : 'invalid-field';
      detail = `${path === '' ? '(envelope)' : path}: ${issue.message}`;
    }
    if (best === undefined || RANK[reason]! < RANK[best.reason]!) best = { reason, detail };
  }
  return best === undefined ? fail('invalid-field', 'envelope does not match the v1 schema') : fail(best.reason, best.detail);
}
