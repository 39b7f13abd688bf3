import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileAuditLog, readAuditLog, verifyAuditLog } from '../../src/audit/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hmacAuth, SIGNED_AT_HEADER } from '../../src/auth/hmac-provider.js';
import { decodeEnvelope, encodeEnvelope, type AgentRpcEnvelope } from '../../src/envelope/index.js';
import { RpcError } from '../../src/errors.js';
import type { AgentNode } from '../../src/rpc/agent-node.js';
import type { RpcTransport } from '../../src/transport.js';
import { Collector } from '../support/collector.js';
import { foreignRequest } from '../support/envelopes.js';
import { MemoryFleet, until } from '../support/fleet.js';
import { RecordedAudit } from '../support/recorded-audit.js';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const keys = new Map([
  ['k-2025', oldKey],
  ['k-2026', newKey],
]);

let fleet: MemoryFleet;
let svc: AgentNode;
let audit: RecordedAudit;
let raw: RpcTransport;
let replies: Collector;

beforeEach(async () => {
  fleet = new MemoryFleet();
  audit = new RecordedAudit();
  svc = await fleet.node('svc', { auth: hmacAuth({ keys, signingKeyId: 'k-2026' }), audit });
  svc.handle('work', (input) => ({ echoed: input }));
  raw = await fleet.raw();
  replies = new Collector({ autoAck: true });
  await raw.subscribe('test.replies', replies.handler);
});
afterEach(() => fleet.close());

/** What a peer holding `keyId` would publish. */
function signedRequest(keyId: string, overrides: Partial<AgentRpcEnvelope> = {}, now = Date.now()): AgentRpcEnvelope {
  const signer = hmacAuth({ keys, signingKeyId: keyId, clock: { now: () => now } });
  return signer.attach!(foreignRequest({ payload: { n: 1 }, ...overrides })) as AgentRpcEnvelope;
}

async function publish(envelope: AgentRpcEnvelope | Uint8Array): Promise<void> {
  const body = envelope instanceof Uint8Array ? envelope : encodeEnvelope(envelope);
  await raw.publish('agents.svc.requests', { body });
}

/** The `count`-th DLQ record, checked against the last reply the caller got. */
async function rejection(count = 1, repliesExpected = count): Promise<{ reason: string; code: unknown }> {
  await until(async () => (await svc.dlq.list()).length >= count && replies.deliveries.length >= repliesExpected);
  const record = (await svc.dlq.list())[count - 1]!;
  expect(record.kind).toBe('auth-rejected');
  const reply = decodeEnvelope(replies.deliveries.at(-1)!.body);
  if (!reply.ok) throw new Error('reply did not decode');
  const payload = reply.envelope.payload as { ok: boolean; error: { code: string; details: { reason: string } } };
  expect(payload.ok).toBe(false);
  expect(payload.error.details.reason).toBe(record.reason);
  return { reason: record.reason, code: payload.error.code };
}

describe('hmac auth - accepted', () => {
  it('hmac - two agents sharing a key ring call each other; every decision is audited', async () => {
    const caller = await fleet.node('caller', { auth: hmacAuth({ keys, signingKeyId: 'k-2025' }), audit });
    const result = await caller.requestAgent({ to: 'svc', capability: 'work', payload: 'hi' });
    expect(result).toMatchObject({ status: 'ok', response: { echoed: 'hi' } });
    const accepted = audit.authChecks('accept');
    // The request verified at svc, the response verified at caller.
    expect(accepted.map((e) => [e['agentId'], e['peerId'], e['provider'], e['subject']])).toEqual([
      ['svc', 'agent://caller', 'hmac', 'hmac:k-2025'],
      ['caller', 'agent://svc', 'hmac', 'hmac:k-2026'],
    ]);
    expect(accepted[0]).toMatchObject({ messageId: result.messageId, correlationId: result.correlationId });
  });

  it('hmac - a key being rotated in and one being rotated out both verify', async () => {
    await publish(signedRequest('k-2025'));
    await publish(signedRequest('k-2026'));
    await until(() => replies.deliveries.length === 2);
    const outcomes = replies.deliveries.map((d) => decodeEnvelope(d.body)).map((r) => (r.ok ? (r.envelope.payload as { ok: boolean }).ok : null));
    expect(outcomes).toEqual([true, true]);
    expect(await svc.dlq.list()).toEqual([]);
  });

  it('hmac - the same content with its keys in another order verifies the same', async () => {
    const envelope = signedRequest('k-2026', { payload: { a: 1, b: { y: 2, x: 3 } } });
    const reordered = JSON.stringify({ ...reverseKeys(envelope), payload: { b: { x: 3, y: 2 }, a: 1 } });
    expect(reordered).not.toBe(new TextDecoder().decode(encodeEnvelope(envelope)));
    await publish(new TextEncoder().encode(reordered));
    await until(() => replies.deliveries.length === 1);
    expect(audit.authChecks('accept')).toHaveLength(1);
  });

  it('hmac - a peer signing with its own RFC 8785 code verifies, whether it sends canonical bytes or not', async () => {
    // Canonicalization and HMAC written here, not taken from src/: what another
    // implementation following the envelope documentation would do.
    const jcs = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
      if (value === null || typeof value !== 'object') return JSON.stringify(value);
      const record = value as Record<string, unknown>;
      return `{${Object.keys(record)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`)
        .join(',')}}`;
    };
    const foreignSigned = (payload: unknown): Record<string, unknown> => {
      const unsigned = { ...foreignRequest({ payload }), headers: { [SIGNED_AT_HEADER]: String(Date.now()) } };
      const signature = createHmac('sha256', newKey).update(jcs(unsigned)).digest('base64url');
      return { ...unsigned, auth: { kind: 'hmac', keyId: 'k-2026', signature } };
    };
    const payload = { z: [1.5, -2, 1e21], a: 'a/b\n😀' };
    const pretty = JSON.stringify(reverseKeys(foreignSigned(payload)), null, 2);
    const canonical = jcs(foreignSigned(payload));
    expect(canonical.startsWith('{"auth":')).toBe(true);
    await publish(new TextEncoder().encode(pretty));
    await publish(new TextEncoder().encode(canonical));
    await until(() => replies.deliveries.length === 2);
    expect(audit.authChecks('accept')).toHaveLength(2);
    // Tampered after signing, in either form: both paths refuse.
    const tampered = (json: string): Uint8Array => new TextEncoder().encode(json.replace('"a/b', '"a/c'));
    await publish(tampered(JSON.stringify(reverseKeys(foreignSigned(payload)), null, 2)));
    await publish(tampered(jcs(foreignSigned(payload))));
    expect((await rejection(1, 3)).reason).toBe('bad-signature');
    expect((await rejection(2, 4)).reason).toBe('bad-signature');
  });

  it('hmac - a redelivery of the same broker message is not a replay', async () => {
    let attempts = 0;
    svc.handle('flaky', () => {
      attempts++;
      if (attempts === 1) throw new RpcError('BACKEND_BUSY', 'try again', { retriable: true });
      return 'second time lucky';
    });
    await publish(signedRequest('k-2026', { capability: 'flaky' }));
    await until(() => replies.deliveries.length === 1);
    expect(attempts).toBe(2);
    expect(audit.authChecks('reject')).toEqual([]);
  });
});

describe('hmac auth - audit file', () => {
  it('hmac - accepts and rejects land in a hash-chained audit file that verifies', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'auth-audit-')), 'audit.jsonl');
    const fileAudit = await FileAuditLog.open({ path });
    const audited = await fleet.node('audited', { auth: hmacAuth({ keys, signingKeyId: 'k-2026' }), audit: fileAudit });
    audited.handle('work', () => 'done');
    const caller = await fleet.node('caller', { auth: hmacAuth({ keys, signingKeyId: 'k-2025' }) });
    expect((await caller.requestAgent({ to: 'audited', capability: 'work', payload: null })).status).toBe('ok');
    await raw.publish('agents.audited.requests', { body: encodeEnvelope(foreignRequest({ to: 'agent://audited' })) });
    await until(async () => (await audited.dlq.list()).length === 1);
    await fileAudit.close();
    expect(await verifyAuditLog(path)).toEqual({ ok: true, records: 2 });
    expect((await readAuditLog(path)).map((r) => [r.kind, r['decision'], r['peerId'], r['reason'] ?? r['subject']])).toEqual([
      ['auth_check', 'accept', 'agent://caller', 'hmac:k-2025'],
      ['auth_check', 'reject', 'agent://tester', 'missing-auth'],
    ]);
  });
});

describe('hmac auth - rejected, each with its reason, in the DLQ and as a typed error', () => {
  it('hmac - a one-byte change to a signed envelope is a bad signature', async () => {
    const bytes = Buffer.from(encodeEnvelope(signedRequest('k-2026', { payload: { amount: 100 } })));
    const at = bytes.indexOf('100');
    bytes[at] = '9'.charCodeAt(0);
    await publish(bytes);
    expect(await rejection()).toEqual({ reason: 'bad-signature', code: 'EAGENTRPC_AUTH_REJECTED' });
  });

  it('hmac - an envelope signed outside the window is stale', async () => {
    await publish(signedRequest('k-2026', {}, Date.now() - 301_000));
    expect((await rejection()).reason).toBe('stale');
  });

  it('hmac - the same signed bytes published again are a replay', async () => {
    const body = encodeEnvelope(signedRequest('k-2026'));
    await publish(body);
    await until(() => replies.deliveries.length === 1);
    await publish(body);
    expect((await rejection(1, 2)).reason).toBe('replayed');
    expect(replies.deliveries).toHaveLength(2);
  });

  it('hmac - an unknown key id is refused', async () => {
    const stranger = hmacAuth({ keys: new Map([['k-stranger', randomBytes(32)]]), signingKeyId: 'k-stranger' });
    await publish(stranger.attach!(foreignRequest()) as AgentRpcEnvelope);
    expect((await rejection()).reason).toBe('unknown-key');
  });

  it('hmac - a truncated signature is a bad signature', async () => {
    const envelope = signedRequest('k-2026');
    if (envelope.auth?.kind !== 'hmac') throw new Error('not signed');
    await publish({ ...envelope, auth: { ...envelope.auth, signature: envelope.auth.signature.slice(0, -4) } });
    expect((await rejection()).reason).toBe('bad-signature');
  });

  it('hmac - a removed signing time is refused', async () => {
    const envelope = signedRequest('k-2026');
    const headers = { ...envelope.headers };
    delete headers[SIGNED_AT_HEADER];
    await publish({ ...envelope, headers });
    // The time is covered by the signature, so removing it breaks the signature first.
    expect((await rejection()).reason).toBe('bad-signature');
  });

  it('auth - a verifier that throws denies with verifier-error (fail closed)', async () => {
    const broken = await fleet.node('broken', {
      auth: {
        name: 'broken',
        verify: () => {
          throw new Error('key store offline');
        },
      },
    });
    broken.handle('work', () => 'must not run');
    await raw.publish('agents.broken.requests', { body: encodeEnvelope(foreignRequest({ to: 'agent://broken' })) });
    await until(async () => (await broken.dlq.list()).length === 1 && replies.deliveries.length === 1);
    expect((await broken.dlq.list())[0]).toMatchObject({ kind: 'auth-rejected', reason: 'verifier-error', detail: 'key store offline' });
  });

  it('hmac - a receiver that requires hmac refuses an envelope without auth or with another kind', async () => {
    await publish(foreignRequest());
    expect((await rejection(1)).reason).toBe('missing-auth');
    await publish(foreignRequest({ auth: { kind: 'oidc', token: 'a.b.c' } }));
    expect((await rejection(2)).reason).toBe('wrong-kind');
    const rejected = audit.authChecks('reject');
    expect(rejected.map((e) => e['reason'])).toEqual(['missing-auth', 'wrong-kind']);
    expect(rejected[0]).toMatchObject({ peerId: 'agent://tester', provider: 'hmac', decision: 'reject' });
  });
});

function reverseKeys(envelope: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(envelope).reverse());
}
