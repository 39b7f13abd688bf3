import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalizeForSigning, type AgentRpcEnvelope } from '../../src/envelope/index.js';

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('envelope canonical form', () => {
  it('envelope - numbers follow the RFC 8785 Appendix B vectors', () => {
    const vectors: Array<[string, string]> = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, expected] of vectors) expect(canonicalJson(fromBits(bits)), bits).toBe(expected);
  });

  it('envelope - NaN and infinities throw TypeError (RFC 8785 Appendix B)', () => {
    expect(() => canonicalJson(fromBits('7fffffffffffffff'))).toThrow(TypeError);
    expect(() => canonicalJson(fromBits('7ff0000000000000'))).toThrow(TypeError);
    expect(() => canonicalJson({ a: [Number.NEGATIVE_INFINITY] })).toThrow(TypeError);
  });

  it('envelope - members are sorted by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh",' +
        '"1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control",' +
        '"\\u00f6":"Latin Small Letter O With Diaeresis"}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('envelope - values are serialized per RFC 8785 §3.2.2 example', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('envelope - keys are sorted at every depth and arrays keep their order', () => {
    expect(canonicalJson({ b: { d: 1, c: [{ z: 1, y: 2 }, 3] }, a: 'x' })).toBe('{"a":"x","b":{"c":[{"y":2,"z":1},3],"d":1}}');
    expect(canonicalJson({ b: 1, a: 2, 10: 3, 9: 4 })).toBe('{"10":3,"9":4,"a":2,"b":1}');
  });

  it('envelope - values are read the way JSON.stringify reads them', () => {
    expect(canonicalJson({ u: undefined, f: () => 1, a: [undefined, () => 1] })).toBe('{"a":[null,null]}');
    expect(canonicalJson({ d: new Date(0) })).toBe('{"d":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson([new Number(1), new String('s'), new Boolean(false)])).toBe('[1,"s",false]');
    expect(canonicalJson(-0)).toBe('0');
  });

  it('envelope - what JSON cannot carry faithfully throws TypeError', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson('\ud800')).toThrow(TypeError);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    // Shared (non-cyclic) references are fine.
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  const envelope: AgentRpcEnvelope = {
    version: 1,
    kind: 'request',
    messageId: 'm-1',
    correlationId: 'c-1',
    from: 'agent://a',
    to: 'agent://b',
    capability: 'echo',
    headers: { b: '2', a: '1' },
    payload: { list: [{ y: 1, x: 2 }], obj: { d: { f: 1, e: 2 }, c: 3 } },
    auth: { kind: 'hmac', keyId: 'k', signature: 's' },
  };

  it('envelope - the signing form is JCS of the envelope without auth', () => {
    expect(text(canonicalizeForSigning(envelope))).toBe(
      '{"capability":"echo","correlationId":"c-1","from":"agent://a","headers":{"a":"1","b":"2"},' +
        '"kind":"request","messageId":"m-1","payload":{"list":[{"x":2,"y":1}],"obj":{"c":3,"d":{"e":2,"f":1}}},' +
        '"to":"agent://b","version":1}',
    );
  });

  it('envelope - the same content in any key order canonicalizes identically', () => {
    const reordered: AgentRpcEnvelope = {
      auth: { signature: 's', keyId: 'k', kind: 'hmac' },
      payload: { obj: { c: 3, d: { e: 2, f: 1 } }, list: [{ x: 2, y: 1 }] },
      headers: { a: '1', b: '2' },
      capability: 'echo',
      to: 'agent://b',
      from: 'agent://a',
      correlationId: 'c-1',
      messageId: 'm-1',
      kind: 'request',
      version: 1,
    };
    expect(text(canonicalizeForSigning(reordered))).toBe(text(canonicalizeForSigning(envelope)));
  });

  it('envelope - auth does not change the canonical bytes', () => {
    const base = text(canonicalizeForSigning(envelope));
    const { auth: _omitted, ...withoutAuth } = envelope;
    expect(text(canonicalizeForSigning(withoutAuth))).toBe(base);
    expect(text(canonicalizeForSigning({ ...envelope, auth: { kind: 'internal' } }))).toBe(base);
    expect(text(canonicalizeForSigning({ ...envelope, auth: { kind: 'oidc', token: 't' } }))).toBe(base);
  });

  it('envelope - any signed field change changes the canonical bytes', () => {
    const base = text(canonicalizeForSigning(envelope));
    expect(text(canonicalizeForSigning({ ...envelope, deadline: 1 }))).not.toBe(base);
    expect(text(canonicalizeForSigning({ ...envelope, payload: { list: [] } }))).not.toBe(base);
    expect(text(canonicalizeForSigning({ ...envelope, headers: { a: '1', b: '3' } }))).not.toBe(base);
  });
});
