import { describe, expect, it } from 'vitest';
import {
  ENVELOPE_KINDS,
  ENVELOPE_VERSION,
  agentIdOf,
  agentUri,
  decodeEnvelope,
  validateEnvelope,
  type AgentRpcEnvelope,
} from '../../src/envelope/index.js';
import { acceptsParsedEnvelope } from '../../src/envelope/fast-accept.js';

const BASE: AgentRpcEnvelope = {
  version: 1,
  kind: 'request',
  messageId: 'm-1',
  correlationId: 'c-1',
  from: 'agent://a',
  to: 'agent://b',
  capability: 'echo',
  payload: null,
};

/** Runs a variant through both the schema and the bytes path, which must agree. */
function reasonOf(overrides: Record<string, unknown>, remove: string[] = []): string {
  const value: Record<string, unknown> = { ...BASE, ...overrides };
  for (const key of remove) delete value[key];
  const direct = validateEnvelope(value);
  const viaBytes = decodeEnvelope(Buffer.from(JSON.stringify(value)));
  const reason = direct.ok ? 'ok' : direct.reason;
  expect(viaBytes.ok ? 'ok' : viaBytes.reason).toBe(reason);
  // The allocation-free check used on the hot path must never accept what the schema rejects.
  expect(acceptsParsedEnvelope(JSON.parse(JSON.stringify(value)))).toBe(direct.ok);
  return reason;
}

describe('envelope schema', () => {
  it('envelope - exports the version and kinds', () => {
    expect(ENVELOPE_VERSION).toBe(1);
    expect(ENVELOPE_KINDS).toEqual(['request', 'response', 'event']);
  });

  it('envelope - agentUri and agentIdOf convert between ids and URIs', () => {
    expect(agentUri('code-reviewer')).toBe('agent://code-reviewer');
    expect(agentIdOf('agent://code-reviewer')).toBe('code-reviewer');
    expect(agentIdOf(agentUri('a.b_c-1'))).toBe('a.b_c-1');
    expect(() => agentUri('bad id')).toThrow(TypeError);
    expect(() => agentUri('')).toThrow(TypeError);
    expect(() => agentIdOf('http://x')).toThrow(TypeError);
    expect(() => agentIdOf('agent://')).toThrow(TypeError);
  });

  it('envelope - every optional field and each auth kind is accepted', () => {
    const full = {
      causedBy: 'm-0',
      replyTo: 'memory://agents.a.responses',
      deadline: 1_767_225_600_000,
      tenantId: 'acme.eu-1',
      headers: { traceparent: 'x', empty: '' },
      payload: { a: [1, { b: null }] },
    };
    expect(reasonOf({ ...full, auth: { kind: 'internal' } })).toBe('ok');
    expect(reasonOf({ ...full, auth: { kind: 'hmac', keyId: 'k1', signature: 'c2ln' } })).toBe('ok');
    expect(reasonOf({ ...full, auth: { kind: 'oidc', token: 't' } })).toBe('ok');
    expect(reasonOf({ ...full, auth: { kind: 'oidc', token: 't', keyId: 'k' } })).toBe('ok');
    expect(reasonOf({ ...full, auth: { kind: 'oauth2-client', token: 't' } })).toBe('ok');
    expect(reasonOf({ ...full, auth: { kind: 'oauth2-client', token: 't', scope: 'a b' } })).toBe('ok');
    for (const kind of ENVELOPE_KINDS) expect(reasonOf({ kind })).toBe('ok');
    // Any lower-case URI scheme: whether a loaded transport reaches it is decided when replying.
    for (const scheme of ['kafka', 'nats', 'sqs', 'amqp', 'mqtt', 'memory', 'http', 'a2a', 'x-bus+v1.2']) expect(reasonOf({ replyTo: `${scheme}://t` })).toBe('ok');
  });

  it('envelope - identifiers accept their full alphabet and length', () => {
    expect(reasonOf({ capability: '$ping' })).toBe('ok');
    expect(reasonOf({ capability: 'ns/review-pr:v2.1_x' })).toBe('ok');
    expect(reasonOf({ capability: 'c'.repeat(128) })).toBe('ok');
    expect(reasonOf({ from: `agent://${'a'.repeat(128)}` })).toBe('ok');
    expect(reasonOf({ messageId: 'A'.repeat(128), correlationId: 'urn:x:1.2-3_4' })).toBe('ok');
    expect(reasonOf({ tenantId: 't'.repeat(128) })).toBe('ok');
    expect(reasonOf({ deadline: 0 })).toBe('ok');
    expect(reasonOf({ deadline: Number.MAX_SAFE_INTEGER })).toBe('ok');
    expect(reasonOf({ payload: 'text' })).toBe('ok');
    expect(reasonOf({ payload: 0 })).toBe('ok');
    expect(reasonOf({ payload: [] })).toBe('ok');
  });

  it('envelope - version 2 or any value other than 1 is unsupported-version', () => {
    expect(reasonOf({ version: 2 })).toBe('unsupported-version');
    expect(reasonOf({ version: 0 })).toBe('unsupported-version');
    expect(reasonOf({ version: '1' })).toBe('unsupported-version');
    expect(reasonOf({ version: 2, foo: 1 })).toBe('unsupported-version');
    const result = validateEnvelope({ ...BASE, version: 2 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).toContain('2');
  });

  it('envelope - a missing version is invalid-field', () => {
    expect(reasonOf({}, ['version'])).toBe('invalid-field');
  });

  it('envelope - fields outside the schema are unknown-field, top level and inside auth', () => {
    expect(reasonOf({ foo: 'bar' })).toBe('unknown-field');
    expect(reasonOf({ auth: { kind: 'internal', extra: 1 } })).toBe('unknown-field');
    expect(reasonOf({ auth: { kind: 'oauth2-client', token: 't', keyId: 'k' } })).toBe('unknown-field');
    // unknown-field outranks invalid-id and invalid-field.
    expect(reasonOf({ foo: 1, messageId: 5, kind: 'call' })).toBe('unknown-field');
  });

  it('envelope - bad message, correlation or causing ids are invalid-id', () => {
    expect(reasonOf({ messageId: 5 })).toBe('invalid-id');
    expect(reasonOf({ messageId: '' })).toBe('invalid-id');
    expect(reasonOf({ messageId: 'm'.repeat(129) })).toBe('invalid-id');
    expect(reasonOf({ correlationId: 'has space' })).toBe('invalid-id');
    expect(reasonOf({ causedBy: 'a/b' })).toBe('invalid-id');
    expect(reasonOf({ causedBy: null })).toBe('invalid-id');
    expect(reasonOf({}, ['messageId'])).toBe('invalid-id');
    expect(reasonOf({ messageId: 5, kind: 'call' })).toBe('invalid-id');
  });

  it('envelope - any other wrong type or format is invalid-field naming the path', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'call' }, 'kind'],
      [{ from: 'agent://' }, 'from'],
      [{ to: 'agent://-x' }, 'to'],
      [{ to: 'b' }, 'to'],
      [{ from: `agent://${'a'.repeat(129)}` }, 'from'],
      [{ capability: '-x' }, 'capability'],
      [{ capability: 'a b' }, 'capability'],
      [{ replyTo: 'Kafka://x' }, 'replyTo'],
      [{ replyTo: '1x://x' }, 'replyTo'],
      [{ replyTo: 'a_b://x' }, 'replyTo'],
      [{ replyTo: 'kafka://' }, 'replyTo'],
      [{ replyTo: 'kafka:topic' }, 'replyTo'],
      [{ deadline: -1 }, 'deadline'],
      [{ deadline: 1.5 }, 'deadline'],
      [{ deadline: 2 ** 53 }, 'deadline'],
      [{ deadline: '1767225600000' }, 'deadline'],
      [{ tenantId: 'a/b' }, 'tenantId'],
      [{ tenantId: '' }, 'tenantId'],
      [{ headers: { x: 1 } }, 'headers.x'],
      [{ headers: ['x'] }, 'headers'],
      [{ auth: { kind: 'hmac', keyId: 'k' } }, 'auth.signature'],
      [{ auth: { kind: 'hmac', keyId: '', signature: 's' } }, 'auth.keyId'],
      [{ auth: { kind: 'magic' } }, 'auth.kind'],
      [{ auth: 'internal' }, 'auth'],
    ];
    for (const [overrides, path] of cases) {
      expect(reasonOf(overrides), JSON.stringify(overrides)).toBe('invalid-field');
      const result = validateEnvelope({ ...BASE, ...overrides });
      if (!result.ok) expect(result.detail.startsWith(`${path}:`), result.detail).toBe(true);
    }
    expect(reasonOf({}, ['payload'])).toBe('invalid-field');
  });

  it('envelope - validateEnvelope rejects non-objects as not-an-object', () => {
    for (const value of [null, undefined, 1, 'x', [], [BASE]]) {
      const result = validateEnvelope(value);
      expect(result.ok ? 'ok' : result.reason).toBe('not-an-object');
    }
  });
});
