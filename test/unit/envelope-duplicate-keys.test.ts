import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../src/envelope/index.js';

const HEAD =
  '{"version":1,"kind":"request","messageId":"m-1","correlationId":"c-1","from":"agent://a","to":"agent://b","capability":"echo"';

function reasonOf(payload: string): string {
  const result = decodeEnvelope(Buffer.from(`${HEAD},"payload":${payload}}`, 'utf8'));
  return result.ok ? 'ok' : result.reason;
}

/** mulberry32: seeded, so a failing case reproduces from its iteration number. */
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

// Keys whose spellings differ but whose values may be equal: plain, escaped, prefixes of each other.
const SPELLINGS: Array<[string, string]> = [
  ['a', '"a"'],
  ['a', '"\\u0061"'],
  ['ab', '"ab"'],
  ['b', '"b"'],
  ['b', '"\\u0062"'],
  ['ba', '"ba"'],
  ['é', '"é"'],
  ['é', '"\\u00e9"'],
  ['', '""'],
  ['k10', '"k10"'],
  ['k9', '"k9"'],
];

describe('envelope duplicate keys', () => {
  it('envelope - a duplicate is found after keys that came in increasing order', () => {
    expect(reasonOf('{"a":1,"b":2,"c":3,"b":4}')).toBe('duplicate-key');
    expect(reasonOf('{"a":1,"c":2,"b":3,"c":4}')).toBe('duplicate-key');
    expect(reasonOf('{"a":1,"b":2,"\\u0061":3}')).toBe('duplicate-key');
    expect(reasonOf('{"a":1,"b":2,"b":3}')).toBe('duplicate-key');
    expect(reasonOf('{"a":{"x":1,"y":2},"b":{"x":1,"y":2}}')).toBe('ok');
    const sorted = Array.from({ length: 300 }, (_, i) => `"k${String(i).padStart(3, '0')}":${i}`);
    expect(reasonOf(`{${sorted.join(',')}}`)).toBe('ok');
    expect(reasonOf(`{${sorted.join(',')},"k005":0}`)).toBe('duplicate-key');
    expect(reasonOf(`{${sorted.join(',')},"k\\u0030\\u0030\\u0035":0}`)).toBe('duplicate-key');
  });

  it('envelope - 5,000 random objects, sorted and not, are duplicate-key exactly when two keys are equal', () => {
    const random = prng(0xd0b1e);
    let duplicates = 0;
    for (let i = 0; i < 5_000; i++) {
      const count = Math.floor(random() * (random() < 0.1 ? 30 : 7));
      let members = Array.from({ length: count }, () => SPELLINGS[Math.floor(random() * SPELLINGS.length)]!);
      // Half of them in increasing order of their bytes, as canonical text has them.
      if (random() < 0.5) members = members.sort(([, x], [, y]) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const text = `{${members.map(([, spelling], n) => `${spelling}:${n}`).join(',')}}`;
      const expected = new Set(members.map(([key]) => key)).size < members.length ? 'duplicate-key' : 'ok';
      if (expected !== 'ok') duplicates++;
      expect(reasonOf(text), `iteration ${i}: ${text}`).toBe(expected);
    }
    expect(duplicates).toBeGreaterThan(1_000);
  });
});
