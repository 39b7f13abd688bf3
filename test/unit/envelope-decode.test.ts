import { describe, expect, it } from 'vitest';
import { DECODE_FAILURE_REASONS, decodeEnvelope, type DecodeLimits } from '../../src/envelope/index.js';

const HEAD =
  '{"version":1,"kind":"request","messageId":"m-1","correlationId":"c-1","from":"agent://a","to":"agent://b","capability":"echo"';

function withPayload(payload: string, extra = ''): string {
  return `${HEAD},"payload":${payload}${extra}}`;
}

function reasonOf(input: string | Uint8Array, limits?: DecodeLimits): string {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const result = decodeEnvelope(bytes, limits);
  return result.ok ? 'ok' : result.reason;
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('envelope decode', () => {
  it('envelope - a minimal envelope decodes', () => {
    const result = decodeEnvelope(Buffer.from(withPayload('{"x":[1,2.5e3,-0.5,true,false,null,"s"]}')));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.envelope.payload).toEqual({ x: [1, 2500, -0.5, true, false, null, 's'] });
  });

  it('envelope - reason codes are listed in check order', () => {
    expect(DECODE_FAILURE_REASONS).toEqual([
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
    ]);
  });

  it('envelope - size exactly at the limit is accepted and one byte more is too-large', () => {
    const text = withPayload('"abc"');
    const size = Buffer.byteLength(text);
    expect(reasonOf(text, { maxBytes: size })).toBe('ok');
    expect(reasonOf(withPayload('"abcd"'), { maxBytes: size })).toBe('too-large');
  });

  it('envelope - too-large is checked before the bytes are decoded', () => {
    const bytes = new Uint8Array(2_000_000).fill(0xff);
    expect(reasonOf(bytes)).toBe('too-large');
    expect(reasonOf(bytes.subarray(0, 100), { maxBytes: 99 })).toBe('too-large');
  });

  it('envelope - malformed UTF-8 is invalid-utf8, never replaced', () => {
    const prefix = Buffer.from(withPayload('"').slice(0, -1));
    const wrap = (...bytes: number[]) => Buffer.concat([prefix, Buffer.from(bytes), Buffer.from('"}')]);
    expect(reasonOf(wrap(0xed, 0xa0, 0x80))).toBe('invalid-utf8'); // CESU-8 surrogate
    expect(reasonOf(wrap(0xc0, 0xaf))).toBe('invalid-utf8'); // overlong '/'
    expect(reasonOf(wrap(0xe2, 0x82))).toBe('invalid-utf8'); // truncated sequence
    expect(reasonOf(wrap(0x80))).toBe('invalid-utf8'); // stray continuation byte
    expect(reasonOf(wrap(0xf4, 0x90, 0x80, 0x80))).toBe('invalid-utf8'); // beyond U+10FFFF
    expect(reasonOf(wrap(0xe2, 0x82, 0xac))).toBe('ok'); // '€'
  });

  it('envelope - a UTF-8 byte order mark is invalid-json', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(withPayload('null'))]);
    expect(reasonOf(bytes)).toBe('invalid-json');
  });

  it('envelope - depth exactly 64 is accepted and 65 is too-deep', () => {
    // The envelope object is level 1, so the payload may nest 63 more.
    expect(reasonOf(withPayload(nested(63)))).toBe('ok');
    expect(reasonOf(withPayload(nested(64)))).toBe('too-deep');
    expect(reasonOf(withPayload(`${'{"a":'.repeat(63)}1${'}'.repeat(63)}`))).toBe('ok');
    expect(reasonOf(withPayload(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`))).toBe('too-deep');
  });

  it('envelope - maxDepth is configurable', () => {
    expect(reasonOf(withPayload(nested(2)), { maxDepth: 3 })).toBe('ok');
    expect(reasonOf(withPayload(nested(3)), { maxDepth: 3 })).toBe('too-deep');
  });

  it('envelope - extreme nesting is too-deep without exhausting the stack', () => {
    expect(reasonOf('['.repeat(500_000))).toBe('too-deep');
    expect(reasonOf(withPayload(nested(200_000)))).toBe('too-deep');
    // too-deep outranks a syntax error, wherever it occurs.
    expect(reasonOf(`${HEAD},"payload":[1,,${'['.repeat(100)}`)).toBe('too-deep');
  });

  it('envelope - text that is not RFC 8259 JSON is invalid-json', () => {
    const cases = [
      withPayload('[1,2,]'),
      withPayload('{"a":1,}'),
      withPayload('/* c */ 1'),
      withPayload("'single'"),
      withPayload('NaN'),
      withPayload('Infinity'),
      withPayload('-Infinity'),
      withPayload('01'),
      withPayload('-01'),
      withPayload('1.'),
      withPayload('.5'),
      withPayload('1e'),
      withPayload('1e+'),
      withPayload('+1'),
      withPayload('0x10'),
      withPayload('tru'),
      withPayload('nul'),
      withPayload('"bad \\x escape"'),
      withPayload('"short \\u12 escape"'),
      withPayload('"raw \u0001 control"'),
      withPayload('"raw \t tab"'),
      withPayload('{"a" 1}'),
      withPayload('{a:1}'),
      withPayload('[1 2]'),
      `${withPayload('null')} x`,
      `${withPayload('null')}{}`,
      withPayload('"unterminated'),
      `${HEAD},"payload":null`,
      '',
      '   ',
      '\u00a0{}',
    ];
    for (const text of cases) expect(reasonOf(text), text).toBe('invalid-json');
  });

  it('envelope - insignificant whitespace is allowed', () => {
    expect(reasonOf(` \n\t\r${withPayload(' [ 1 , { "a" : 2 } ] ')} \r\n`)).toBe('ok');
  });

  it('envelope - the same key twice in one object is duplicate-key at any depth', () => {
    expect(reasonOf(withPayload('{"a":{"b":{"x":1,"y":2,"x":3}}}'))).toBe('duplicate-key');
    expect(reasonOf(withPayload('null', ',"kind":"event"'))).toBe('duplicate-key');
    expect(reasonOf(withPayload('{"a":1,"\\u0061":2}'))).toBe('duplicate-key');
    expect(reasonOf(withPayload('{"\\u00e9":1,"é":2}'))).toBe('duplicate-key');
    expect(reasonOf(withPayload('{"":1,"":2}'))).toBe('duplicate-key');
    // The same key in sibling or nested objects is fine.
    expect(reasonOf(withPayload('{"a":{"a":1},"b":{"a":2},"c":[{"a":3},{"a":4}]}'))).toBe('ok');
  });

  it('envelope - duplicates are found in large objects too', () => {
    const members = Array.from({ length: 200 }, (_, i) => `"k${i}":${i}`);
    expect(reasonOf(withPayload(`{${members.join(',')}}`))).toBe('ok');
    expect(reasonOf(withPayload(`{${members.join(',')},"k150":0}`))).toBe('duplicate-key');
    expect(reasonOf(withPayload(`{${members.join(',')},"k\\u0031\\u0035\\u0030":0}`))).toBe('duplicate-key');
  });

  it('envelope - __proto__, constructor and prototype keys are forbidden-key at any depth', () => {
    expect(reasonOf(withPayload('{"a":{"b":{"c":{"d":{"__proto__":{"x":1}}}}}}'))).toBe('forbidden-key');
    expect(reasonOf(withPayload('[{"constructor":1}]'))).toBe('forbidden-key');
    expect(reasonOf(withPayload('{"prototype":1}'))).toBe('forbidden-key');
    expect(reasonOf(withPayload('{"\\u005f_proto__":1}'))).toBe('forbidden-key');
    expect(reasonOf(withPayload('null', ',"headers":{"__proto__":"x"}'))).toBe('forbidden-key');
    // Only keys: the same words as values are data.
    expect(reasonOf(withPayload('{"k":"__proto__","p":["constructor","prototype"],"__proto":1}'))).toBe('ok');
  });

  it('envelope - unpaired surrogate escapes are lone-surrogate, valid pairs are accepted', () => {
    expect(reasonOf(withPayload('"\\ud800"'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('"\\udc00\\ud800"'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('"x\\ud83d"'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('"\\ud83dx\\ude00"'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('"\\ud83d\\u0041"'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('{"\\udfff":1}'))).toBe('lone-surrogate');
    expect(reasonOf(withPayload('"\\ud83d\\ude00"'))).toBe('ok');
    expect(reasonOf(withPayload('"\\uD83D\\uDE00"'))).toBe('ok');
    expect(reasonOf(withPayload('"😀"'))).toBe('ok');
  });

  it('envelope - the first applicable reason wins', () => {
    expect(reasonOf(withPayload('{"a":1,"a":2,"__proto__":3}'))).toBe('duplicate-key');
    expect(reasonOf(withPayload('{"__proto__":"\\ud800","b":[1,2,]}'))).toBe('invalid-json');
    expect(reasonOf(withPayload('{"s":"\\ud800","constructor":1}'))).toBe('forbidden-key');
    expect(reasonOf(withPayload('null', ',"foo":1,"messageId":"also dup"'))).toBe('duplicate-key');
  });

  it('envelope - a top level that is not an object is not-an-object', () => {
    for (const text of ['[]', '[{"version":1}]', '"envelope"', '42', 'null', 'true']) {
      expect(reasonOf(text), text).toBe('not-an-object');
    }
  });

  it('envelope - limits that are not positive integers throw RangeError', () => {
    const bytes = Buffer.from(withPayload('null'));
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => decodeEnvelope(bytes, { maxBytes: bad })).toThrow(RangeError);
      expect(() => decodeEnvelope(bytes, { maxDepth: bad })).toThrow(RangeError);
    }
  });

  it('envelope - something other than bytes is a caller mistake and throws TypeError', () => {
    expect(() => decodeEnvelope(withPayload('null') as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('envelope - a decode failure carries a detail for logs', () => {
    const result = decodeEnvelope(Buffer.from(withPayload('[1,]')));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail.length).toBeGreaterThan(0);
  });

  it('envelope - decoding works on a view into a larger buffer', () => {
    const text = withPayload('{"a":1,"b":2}');
    const big = Buffer.from(`xxxx${text}yyyy`);
    expect(reasonOf(big.subarray(4, 4 + Buffer.byteLength(text)))).toBe('ok');
  });
});
