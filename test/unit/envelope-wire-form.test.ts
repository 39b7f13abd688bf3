import { describe, expect, it } from 'vitest';
import { canonicalizeForSigning, decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { foreignRequest } from '../support/envelopes.js';

const signed = (payload: unknown): AgentRpcEnvelope =>
  foreignRequest({ payload, auth: { kind: 'hmac', keyId: 'k', signature: 'c2lnbmF0dXJlLW5vdC1jaGVja2VkLWhlcmUtMzJieXRl' } });

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

/** The canonical bytes of an envelope with `payload`, with `from` replaced by `to` once. */
function respelled(payload: unknown, from: string, to: string): Uint8Array {
  const canonical = text(encodeEnvelope(signed(payload)));
  expect(canonical).toContain(from);
  return Buffer.from(canonical.replace(from, to), 'utf8');
}

describe('envelope wire form', () => {
  it('envelope - bytes this runtime writes are recognised as RFC 8785 text; the tail is what the signature covers', () => {
    const envelope = signed({ n: 1234567890123456, s: 'a/b "q" \n \u0001 é 😀', list: [0, -1, 0.5, 1e21, null, true] });
    const decoded = decodeEnvelope(encodeEnvelope(envelope));
    expect(decoded.ok).toBe(true);
    if (!decoded.ok || decoded.signedTail === undefined) throw new Error('expected the canonical tail');
    expect(`{${text(decoded.signedTail)}`).toBe(text(canonicalizeForSigning(decoded.envelope)));
  });

  it('envelope - an unsigned envelope has no signed tail', () => {
    const decoded = decodeEnvelope(encodeEnvelope(foreignRequest({ payload: { a: 1 } })));
    expect(decoded.ok && decoded.signedTail).toBeUndefined();
  });

  // Each spelling decodes to the same envelope as the canonical bytes, but is not the
  // canonical text, so a verifier must canonicalize it instead of hashing the bytes.
  it.each([
    ['whitespace between members', ',"kind"', ', "kind"'],
    ['a number with a fraction of zero', '"n":2', '"n":2.0'],
    ['a number with an exponent', '"n":2', '"n":2e0'],
    ['negative zero', '"n":2', '"n":-0'],
    ['an integer beyond double precision', '"n":2', '"n":12345678901234567'],
    ['an escaped solidus', 'a/b', 'a\\/b'],
    ['an escaped letter', 'a/b', '\\u0061/b'],
    ['a named control written as \\u', '\\n', '\\u000a'],
    ['an upper-case \\u escape', '\\u001f', '\\u001F'],
    ['an escaped key', '"n":', '"\\u006e":'],
  ])('envelope - %s is not taken as canonical', (_name, from, to) => {
    const bytes = respelled({ n: 2, s: 'a/b\n\u001f' }, from, to);
    const decoded = decodeEnvelope(bytes);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.signedTail).toBeUndefined();
  });

  it('envelope - members out of order, at the top or inside the payload, are not taken as canonical', () => {
    const envelope = signed({ a: 1, b: 2 });
    const canonical = text(encodeEnvelope(envelope));
    for (const reordered of [canonical.replace('{"a":1,"b":2}', '{"b":2,"a":1}'), canonical.replace('"to":"agent://svc","version":1}', '"version":1,"to":"agent://svc"}')]) {
      expect(reordered).not.toBe(canonical);
      const decoded = decodeEnvelope(Buffer.from(reordered, 'utf8'));
      expect(decoded.ok && decoded.signedTail).toBeUndefined();
    }
    const late = canonical.replace(/^\{("auth":\{[^}]*\}),(.*)\}$/, '{$2,$1}');
    const decoded = decodeEnvelope(Buffer.from(late, 'utf8'));
    expect(decoded.ok).toBe(true);
    expect(decoded.ok && decoded.signedTail).toBeUndefined();
  });

  it('envelope - keys beyond the Basic Multilingual Plane sort by UTF-16 code units, as RFC 8785 says', () => {
    // U+1F600 is a surrogate pair (0xD83D…), so it sorts before U+FF21 in UTF-16 although
    // its UTF-8 bytes sort after: the canonical text has the emoji key first.
    const envelope = signed({ '\uff21': 1, '😀': 2 });
    const bytes = encodeEnvelope(envelope);
    expect(text(bytes)).toContain('{"😀":2,"Ａ":1}');
    const decoded = decodeEnvelope(bytes);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    // Either answer is safe as long as a tail, when given, is exact.
    if (decoded.signedTail !== undefined) expect(`{${text(decoded.signedTail)}`).toBe(text(canonicalizeForSigning(decoded.envelope)));
  });
});
