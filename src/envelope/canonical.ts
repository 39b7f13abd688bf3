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
 * BigInt, cycles and unpaired surrogates. The text is written by the JCS writer
 * (jcs-writer.ts) into a buffer reused from call to call.
 */
import { jcsError } from './jcs-output.js';
import { JcsWriter, isOmitted, jsonView } from './jcs-writer.js';
import { ENVELOPE_FIELDS, type AgentRpcEnvelope } from './schema.js';

// The writer every call uses, unless a toJSON or getter it runs writes JSON itself: that
// nested call gets a writer of its own instead of overwriting the outer call's bytes.
const shared = new JcsWriter();
let sharedBusy = false;

function acquire(): JcsWriter {
  if (sharedBusy) return new JcsWriter();
  sharedBusy = true;
  return shared;
}

function release(writer: JcsWriter): void {
  writer.reset();
  if (writer === shared) sharedBusy = false;
}

function writeValue(writer: JcsWriter, value: unknown, key: string): void {
  const viewed = jsonView(value, key);
  if (isOmitted(viewed)) throw jcsError(`a value of type ${typeof viewed} has no JSON representation`);
  writer.writeViewed(viewed);
}

/** RFC 8785 canonical JSON text of any JSON-representable value. */
export function canonicalJson(value: unknown): string {
  const writer = acquire();
  try {
    writeValue(writer, value, '');
    return writer.buf.toString('utf8', writer.from, writer.at);
  } finally {
    release(writer);
  }
}

// Every field but `auth`, sorted, each with the comma that separates it from the one before.
const SIGNED_FIELDS = ENVELOPE_FIELDS.filter((field) => field !== 'auth').sort();
const MEMBER_PREFIXES = SIGNED_FIELDS.map((field) => `,${JSON.stringify(field)}:`);

/**
 * The JCS text of the envelope's schema fields (anything else on the object is never
 * written nor signed), without `auth` when `withAuth` is false: what signatures cover.
 * `auth` sorts first, so the two texts differ only by that leading member.
 */
function writeEnvelope(writer: JcsWriter, envelope: AgentRpcEnvelope, withAuth: boolean): void {
  const record = envelope as unknown as Record<string, unknown>;
  let first = true;
  writer.writeByte(0x7b);
  if (withAuth && envelope.auth !== undefined) {
    writer.writeAscii('"auth":');
    writeValue(writer, envelope.auth, 'auth');
    first = false;
  }
  for (let i = 0; i < SIGNED_FIELDS.length; i++) {
    const field = SIGNED_FIELDS[i]!;
    const value = jsonView(record[field], field);
    if (isOmitted(value)) continue;
    writer.writeAscii(MEMBER_PREFIXES[i]!, first ? 1 : 0);
    first = false;
    writer.writeViewed(value);
  }
  writer.writeByte(0x7d);
}

// The envelope signed last and the signing text written for it, kept in a writer of their
// own. The send path signs and then encodes the same object: the encoder puts `auth` in
// front of these bytes instead of writing them again. An envelope changed after signing no
// longer matches its signature anyway; the bytes sent are those that were signed.
const signing = new JcsWriter();
let lastSigned: AgentRpcEnvelope | undefined;
let signingBusy = false;

/**
 * The JCS bytes an envelope signature covers: everything but `auth` (the signature lives
 * there). The view is valid until the next call: hash it at once.
 */
export function canonicalSigningBytes(envelope: AgentRpcEnvelope): Uint8Array {
  if (signingBusy) return canonicalizeForSigning(envelope);
  signingBusy = true;
  lastSigned = undefined;
  signing.reset();
  try {
    writeEnvelope(signing, envelope, false);
  } catch (error) {
    signing.reset();
    throw error;
  } finally {
    signingBusy = false;
  }
  lastSigned = envelope;
  return signing.buf.subarray(signing.from, signing.at);
}

/** The JCS text of the whole envelope, in bytes of its own: the wire form (see encodeEnvelope). */
export function canonicalWireBytes(envelope: AgentRpcEnvelope): Buffer {
  const writer = acquire();
  try {
    if (envelope === lastSigned && envelope.auth !== undefined) {
      lastSigned = undefined;
      writer.writeAscii('{"auth":');
      writeValue(writer, envelope.auth, 'auth');
      writer.writeByte(0x2c);
      // The signing text without its opening brace follows.
      writer.writeFrom(signing.buf, signing.from + 1, signing.at);
      return writer.take();
    }
    writeEnvelope(writer, envelope, true);
    return writer.take();
  } finally {
    release(writer);
  }
}

/** The JCS text an envelope signature covers, in bytes of its own. */
export function canonicalizeForSigning(envelope: AgentRpcEnvelope): Uint8Array {
  const writer = acquire();
  try {
    writeEnvelope(writer, envelope, false);
    return writer.take();
  } finally {
    release(writer);
  }
}
