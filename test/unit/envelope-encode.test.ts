import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';

const FULL: AgentRpcEnvelope = {
  // Deliberately not in schema order: the encoder imposes its own.
  auth: { kind: 'hmac', keyId: 'k1', signature: 'sig' },
  payload: { z: 1, a: [true, null] },
  headers: { b: '2', a: '1' },
  tenantId: 'acme',
  deadline: 1_767_225_600_000,
  replyTo: 'nats://agents.a.responses',
  capability: 'review-pr',
  to: 'agent://b',
  from: 'agent://a',
  causedBy: 'm-0',
  correlationId: 'c-1',
  messageId: 'm-1',
  kind: 'request',
  version: 1,
};

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

describe('envelope encode', () => {
  it('envelope - the bytes are the RFC 8785 form: members sorted at every depth, auth first, no whitespace', () => {
    expect(text(encodeEnvelope(FULL))).toBe(
      '{"auth":{"keyId":"k1","kind":"hmac","signature":"sig"},"capability":"review-pr","causedBy":"m-0",' +
        '"correlationId":"c-1","deadline":1767225600000,"from":"agent://a","headers":{"a":"1","b":"2"},' +
        '"kind":"request","messageId":"m-1","payload":{"a":[true,null],"z":1},' +
        '"replyTo":"nats://agents.a.responses","tenantId":"acme","to":"agent://b","version":1}',
    );
  });

  it('envelope - payload values are written as RFC 8785 writes them (numbers, escapes, toJSON, integer-like keys)', () => {
    const payload = { b: [1e21, 0.1, -0, 1.5e-7], a: { '10': 'x', '9': 'y', é: '\u2028\n\u0001"' }, d: new Date(0) };
    const bytes = text(encodeEnvelope({ ...FULL, auth: undefined, payload }));
    expect(bytes).toContain('"payload":{"a":{"10":"x","9":"y","é":"\u2028\\n\\u0001\\""},"b":[1e+21,0.1,0,1.5e-7],"d":"1970-01-01T00:00:00.000Z"}');
  });

  it('envelope - absent and undefined optional fields are omitted', () => {
    const minimal: AgentRpcEnvelope = {
      version: 1,
      kind: 'event',
      messageId: 'm',
      correlationId: 'c',
      causedBy: undefined,
      from: 'agent://a',
      to: 'agent://b',
      capability: 'tick',
      payload: null,
    };
    expect(text(encodeEnvelope(minimal))).toBe(
      '{"capability":"tick","correlationId":"c","from":"agent://a","kind":"event","messageId":"m","payload":null,"to":"agent://b","version":1}',
    );
  });

  it('envelope - properties outside the schema are not written', () => {
    const extra = { ...FULL, secret: 'do not send' } as AgentRpcEnvelope;
    expect(text(encodeEnvelope(extra))).not.toContain('secret');
  });

  it('envelope - encode then decode gives an equal envelope, and re-encoding the same bytes', () => {
    const bytes = encodeEnvelope(FULL);
    const decoded = decodeEnvelope(bytes);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.envelope).toEqual(FULL);
    expect(Buffer.compare(Buffer.from(encodeEnvelope(decoded.envelope)), Buffer.from(bytes))).toBe(0);
  });

  it('envelope - payloads JSON cannot represent throw TypeError', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodeEnvelope({ ...FULL, payload: cyclic })).toThrow(TypeError);
    expect(() => encodeEnvelope({ ...FULL, payload: { n: 10n } })).toThrow(TypeError);
    expect(() => encodeEnvelope({ ...FULL, payload: undefined })).toThrow(TypeError);
    expect(() => encodeEnvelope({ ...FULL, payload: () => 1 })).toThrow(TypeError);
  });

  it('envelope - strings with unpaired surrogates throw TypeError instead of producing bytes peers reject', () => {
    expect(() => encodeEnvelope({ ...FULL, payload: 'x\ud800' })).toThrow(TypeError);
    expect(() => encodeEnvelope({ ...FULL, headers: { h: '\udc00' } })).toThrow(TypeError);
    // An escaped backslash followed by the letters "ud800" is ordinary text.
    expect(text(encodeEnvelope({ ...FULL, payload: '\\ud800 😀' }))).toContain('"\\\\ud800 😀"');
  });

  it('envelope - output is UTF-8 without escaping non-ASCII text', () => {
    const bytes = encodeEnvelope({ ...FULL, payload: 'Grüße 😀' });
    expect(text(bytes)).toContain('"payload":"Grüße 😀"');
    expect(bytes).toBeInstanceOf(Uint8Array);
  });
});
