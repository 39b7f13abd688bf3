import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECODE_FAILURE_REASONS, canonicalizeForSigning, decodeEnvelope, encodeEnvelope, envelopeSchema } from '../../src/envelope/index.js';
import { acceptsParsedEnvelope } from '../../src/envelope/fast-accept.js';
import { scanJson } from '../../src/envelope/json-scan.js';

/** mulberry32: tiny, seeded and deterministic, so a failure reproduces from its iteration number. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'envelopes', 'valid');
const corpus = readdirSync(ROOT)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => new Uint8Array(readFileSync(join(ROOT, name))));

// The same envelopes as this runtime writes them (RFC 8785 text, auth first).
const canonicalCorpus = corpus.map((bytes) => {
  const decoded = decodeEnvelope(bytes);
  if (!decoded.ok) throw new Error('a valid fixture did not decode');
  return new Uint8Array(encodeEnvelope(decoded.envelope));
});

/**
 * RFC 8785 written independently of src/, for JSON.parse output: members sorted by UTF-16
 * code units (the default sort), primitives as JSON.stringify writes them.
 */
function independentJcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(independentJcs).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${independentJcs(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

// Bytes that steer mutations towards the interesting parts of the grammar.
const INTERESTING = [...'{}[]",:\\u0123456789.eE+-tfn _/'].map((c) => c.charCodeAt(0)).concat([0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xed, 0xef, 0xf4, 0xff]);

function mutate(random: () => number, from: Uint8Array[] = corpus): Uint8Array {
  const pick = (n: number) => Math.floor(random() * n);
  let bytes = Uint8Array.from(from[pick(from.length)]!);
  const rounds = 1 + pick(4);
  for (let r = 0; r < rounds; r++) {
    const at = pick(bytes.length + 1);
    const byte = random() < 0.6 ? INTERESTING[pick(INTERESTING.length)]! : pick(256);
    switch (pick(6)) {
      case 0: // flip bits of one byte
        if (bytes.length > 0) bytes[Math.min(at, bytes.length - 1)]! ^= 1 << pick(8);
        break;
      case 1: // insert a byte
        bytes = Uint8Array.from([...bytes.subarray(0, at), byte, ...bytes.subarray(at)]);
        break;
      case 2: // delete a run
        bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1 + pick(8))]);
        break;
      case 3: // truncate
        bytes = bytes.slice(0, at);
        break;
      case 4: {
        // splice a slice of another fixture in
        const other = corpus[pick(corpus.length)]!;
        const from = pick(other.length);
        const piece = other.subarray(from, from + 1 + pick(40));
        bytes = Uint8Array.from([...bytes.subarray(0, at), ...piece, ...bytes.subarray(at + pick(40))]);
        break;
      }
      default: // overwrite one byte
        if (bytes.length > 0) bytes[Math.min(at, bytes.length - 1)] = byte;
    }
  }
  return bytes;
}

describe('envelope decode fuzz', () => {
  it('envelope - 20,000 mutations never throw and always end in a known result', () => {
    const random = prng(0x5eed_2025);
    const reasons = new Set<string>(DECODE_FAILURE_REASONS);
    const seen = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const bytes = mutate(random);
      let result: ReturnType<typeof decodeEnvelope>;
      try {
        result = decodeEnvelope(bytes);
      } catch (error) {
        throw new Error(`iteration ${i}: decodeEnvelope threw ${String(error)}`, { cause: error });
      }
      const key = result.ok ? 'ok' : result.reason;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (!result.ok) {
        if (!reasons.has(result.reason)) throw new Error(`iteration ${i}: unknown reason ${result.reason}`);
        continue;
      }
      const again = decodeEnvelope(encodeEnvelope(result.envelope));
      if (!again.ok) throw new Error(`iteration ${i}: re-encoded envelope failed with ${again.reason}`);
      expect(again.envelope).toEqual(result.envelope);
    }
    // The corpus must exercise acceptance as well as many rejection paths.
    expect(seen.get('ok') ?? 0).toBeGreaterThan(100);
    expect(seen.size).toBeGreaterThan(6);
  });

  it('envelope - the scan agrees with JSON.parse on syntax and the hot-path check agrees with the schema', () => {
    const random = prng(0xacce_5500);
    const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let compared = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = mutate(random);
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        continue;
      }
      let value: unknown;
      let parsed = true;
      try {
        value = JSON.parse(text);
      } catch {
        parsed = false;
      }
      const scanned = scanJson(bytes, 64)?.reason;
      // The scan decides syntax exactly as the platform parser does (depth aside).
      if (scanned !== 'too-deep' && parsed === (scanned === 'invalid-json')) {
        throw new Error(`iteration ${i}: scan says ${String(scanned)}, JSON.parse ${parsed} for ${text}`);
      }
      if (scanned !== undefined) continue;
      compared++;
      const fast = acceptsParsedEnvelope(value);
      if (fast !== envelopeSchema.safeParse(value).success) {
        throw new Error(`iteration ${i}: fast check says ${fast} for ${text}`);
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('envelope - bytes the decoder calls canonical are exactly the RFC 8785 text the signature covers', () => {
    const random = prng(0xca70_0001);
    let canonical = 0;
    let other = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = mutate(random, canonicalCorpus);
      const result = decodeEnvelope(bytes);
      if (!result.ok) continue;
      if (result.signedTail === undefined) {
        other++;
        continue;
      }
      canonical++;
      const { auth: _auth, ...unsigned } = result.envelope;
      const signed = `{${Buffer.from(result.signedTail).toString('utf8')}`;
      if (signed !== independentJcs(unsigned) || signed !== Buffer.from(canonicalizeForSigning(result.envelope)).toString('utf8')) {
        throw new Error(`iteration ${i}: called canonical, but is not: ${Buffer.from(bytes).toString('utf8')}`);
      }
    }
    // Both ways must be exercised: mutations that keep the form, and ones that break it.
    expect(canonical).toBeGreaterThan(100);
    expect(other).toBeGreaterThan(100);
  });
});
