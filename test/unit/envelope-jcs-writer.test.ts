import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { canonicalJson, canonicalizeForSigning, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { foreignRequest } from '../support/envelopes.js';

/** mulberry32: seeded, so a failing value reproduces from its iteration number. */
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

/** RFC 8785 for plain data, written independently of src/: sorted keys, primitives as JSON.stringify writes them. */
function referenceJcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceJcs).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${referenceJcs(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

// Units that take every branch of the string writer: plain ASCII, the quote and the
// backslash, named and unnamed controls, DEL, 2- and 3-byte UTF-8, U+2028, the last BMP
// units, and a surrogate pair.
const UNITS = ['a', 'Z', '0', ' ', '/', '"', '\\', '\n', '\t', '\b', '\f', '\r', '\u0000', '\u001f', '\u007f', 'é', 'ß', '€', '\u2028', '\ue000', '\uffff', '😀'];

function randomString(random: () => number, maxUnits = 80): string {
  // Up to 80 units, across the length where long strings go to the native writer.
  const length = Math.floor(random() ** 2 * maxUnits);
  let text = '';
  for (let i = 0; i < length; i++) text += random() < 0.7 ? String.fromCharCode(0x61 + Math.floor(random() * 26)) : UNITS[Math.floor(random() * UNITS.length)]!;
  return text;
}

function randomNumber(random: () => number): number {
  switch (Math.floor(random() * 6)) {
    case 0:
      return Math.floor(random() * 1000) - 500;
    case 1:
      return Math.floor(random() * 2 ** 53) * (random() < 0.5 ? -1 : 1);
    case 2:
      return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    case 3:
      return [0, -0, 1e21, 1e-7, 5e-324, 2 ** 31, -(2 ** 31), 2 ** 53, 999_999_999_999, 1_000_000_000_000][Math.floor(random() * 10)]!;
    case 4:
      return Math.floor(random() * 9_007_199) * 1e9 + Math.floor(random() * 3) - 1;
    default:
      return random() * 2 ** 60;
  }
}

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 6));
  switch (pick) {
    case 0:
      return randomString(random);
    case 1:
      return randomNumber(random);
    case 2:
      return [true, false, null][Math.floor(random() * 3)];
    case 3:
      return randomString(random, 8);
    case 4:
      return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, depth + 1));
    default: {
      const record: Record<string, unknown> = {};
      const members = Math.floor(random() * (random() < 0.05 ? 40 : 7));
      for (let i = 0; i < members; i++) {
        // Integer-like keys too: V8 enumerates them first, whatever the insertion order.
        const key = random() < 0.15 ? String(Math.floor(random() * 200)) : randomString(random, 12);
        record[key] = randomValue(random, depth + 1);
      }
      return record;
    }
  }
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('envelope JCS writer', () => {
  it('envelope - 5,000 random values are written exactly as an independent RFC 8785 writer writes them', () => {
    const random = prng(0x1c5_2026);
    for (let i = 0; i < 5_000; i++) {
      const value = randomValue(random, 0);
      const expected = referenceJcs(value);
      expect(canonicalJson(value), `iteration ${i}`).toBe(expected);
      const envelope = foreignRequest({ messageId: 'm-1', correlationId: 'c-1', payload: value, headers: { h: randomString(random) } });
      const signing = `{"capability":"work","correlationId":"c-1","from":"agent://tester","headers":${referenceJcs(envelope.headers)},"kind":"request","messageId":"m-1","payload":${expected},"replyTo":"memory://test.replies","to":"agent://svc","version":1}`;
      expect(text(canonicalizeForSigning(envelope)), `iteration ${i}`).toBe(signing);
      expect(text(encodeEnvelope(envelope)), `iteration ${i}`).toBe(signing);
    }
  });

  it('envelope - an unpaired surrogate throws TypeError in short and long strings, keys and values', () => {
    const long = 'x'.repeat(100);
    for (const bad of ['\ud800', '\udc00', `a\ud83d`, `${long}\ud800${long}`, `${long}\udc00`, '\ude00\ud83d']) {
      expect(() => canonicalJson(bad)).toThrow(TypeError);
      expect(() => canonicalJson({ [bad]: 1 })).toThrow(TypeError);
      expect(() => encodeEnvelope(foreignRequest({ payload: [bad] }))).toThrow(TypeError);
    }
    expect(canonicalJson(`${long}😀`)).toBe(JSON.stringify(`${long}😀`));
  });

  it('envelope - a toJSON that writes JSON itself does not disturb the text around it', () => {
    const inner = { toJSON: () => ({ nested: canonicalJson({ b: 2, a: 1 }), bytes: encodeEnvelope(foreignRequest({ messageId: 'm-2', correlationId: 'c-2' })).length }) };
    const payload = { z: 'last', inner, a: 'first' };
    expect(canonicalJson(payload)).toBe(referenceJcs({ a: 'first', inner: inner.toJSON(), z: 'last' }));
    expect(text(encodeEnvelope(foreignRequest({ payload })))).toContain(`"payload":${referenceJcs({ a: 'first', inner: inner.toJSON(), z: 'last' })}`);
  });

  it('envelope - each encoded envelope owns its bytes: later encodes, small and large, leave earlier ones intact', () => {
    const kept: Array<[Uint8Array, string]> = [];
    for (let i = 0; i < 300; i++) {
      // Sizes from a few hundred bytes to ~15 KB, so outputs share slabs, outgrow them and get their own memory.
      const bytes = encodeEnvelope(foreignRequest({ payload: { n: i, s: 'y'.repeat((i * 37) % 15_000) } }));
      kept.push([bytes, text(bytes)]);
      if (i % 7 === 0) canonicalJson({ filler: 'z'.repeat(i * 13) });
    }
    for (const [bytes, expected] of kept) expect(text(bytes)).toBe(expected);
    expect(new Set(kept.map(([, expected]) => expected)).size).toBe(kept.length);
  });

  it('envelope - a signed envelope encodes to auth followed by exactly the text its signature covers', () => {
    const signer = hmacAuth({ keys: new Map([['k', randomBytes(32)]]), signingKeyId: 'k' });
    const envelope = foreignRequest({ payload: { b: [1, 2], a: 'x' }, headers: { z: '1' } });
    const signed = signer.attach!(envelope) as AgentRpcEnvelope;
    // Encoded right after signing (the bytes kept from signing) and again (written afresh).
    const reused = text(encodeEnvelope(signed));
    const afresh = text(encodeEnvelope(signed));
    expect(reused).toBe(afresh);
    expect(reused).toBe(`{"auth":${referenceJcs(signed.auth)},${text(canonicalizeForSigning(signed)).slice(1)}`);
  });
});
