import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientCredentialsTokens } from '../../src/auth/client-credentials.js';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { oauth2ClientAuth } from '../../src/auth/oauth2-client-provider.js';
import { oidcAuth } from '../../src/auth/oidc-provider.js';
import type { AuthProvider } from '../../src/auth/provider.js';
import { decodeEnvelope, encodeEnvelope } from '../../src/envelope/index.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { PeerTable } from '../../src/rpc/peer-table.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { Collector } from '../support/collector.js';
import { foreignRequest } from '../support/envelopes.js';
import { attackerKey, hs256WithPublicKey, signedToken, standardClaims, tamperedPayload, unsignedToken } from '../support/forged-tokens.js';
import { until } from '../support/fleet.js';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { RecordedAudit } from '../support/recorded-audit.js';

const AUDIENCE = 'urn:agent-rpc:svc';
const caller = { clientId: 'caller-client', clientSecret: 'caller-secret-0123456789abcdef', scopes: ['rpc:call', 'rpc:admin'] };
const reader = { clientId: 'reader-client', clientSecret: 'reader-secret-0123456789abcdef', scopes: ['rpc:read'] };

let issuer: OidcIssuer;
beforeAll(async () => {
  issuer = await startOidcIssuer({ clients: [caller, reader], resource: AUDIENCE, scopes: ['rpc:call', 'rpc:admin', 'rpc:read'] });
});
afterAll(() => issuer.close());

const nodes: AgentNode[] = [];
afterEach(async () => {
  await issuer.start();
  for (const node of nodes.splice(0)) await node.close();
});

const verifier = (): AuthProvider => oidcAuth({ issuer: issuer.issuer, audience: AUDIENCE, scopes: ['rpc:call'] });
const callerAuth = (client = caller, scopes = ['rpc:call']): AuthProvider =>
  oauth2ClientAuth({ tokenEndpoint: issuer.tokenEndpoint, clientId: client.clientId, clientSecret: client.clientSecret, scopes, resource: AUDIENCE });

/** svc requires OIDC tokens; caller mints them with client credentials for its calls to svc. */
async function pair(options: { callerToSvc?: AuthProvider; svcAuth?: AuthProvider } = {}) {
  const bus = new MemoryBus();
  const audit = new RecordedAudit();
  const svc = new AgentNode({ id: 'svc', transports: [memoryTransport({ bus })], auth: options.svcAuth ?? verifier(), audit });
  svc.handle('work', (input) => ({ echoed: input }));
  const peers = new PeerTable([{ id: 'svc', routes: [{ kind: 'memory' }], auth: options.callerToSvc ?? callerAuth() }]);
  const client = new AgentNode({ id: 'caller', transports: [memoryTransport({ bus })], peers });
  nodes.push(svc, client);
  await svc.start();
  await client.start();
  const raw = memoryTransport({ bus });
  await raw.connect();
  const replies = new Collector({ autoAck: true });
  await raw.subscribe('test.replies', replies.handler);
  return { svc, client, audit, raw, replies };
}

describe('oidc - oauth2-client caller, oidc verifying receiver, real OpenID provider', () => {
  it('oidc - a call with a minted token is accepted; the audit record names the client', async () => {
    const { client, audit } = await pair();
    const result = await client.requestAgent({ to: 'svc', capability: 'work', payload: 1 });
    expect(result).toMatchObject({ status: 'ok', response: { echoed: 1 } });
    expect(audit.authChecks()).toEqual([
      expect.objectContaining({ agentId: 'svc', peerId: 'agent://caller', provider: 'oidc', decision: 'accept', subject: caller.clientId, messageId: result.messageId }),
    ]);
  });

  it('oidc - 50 concurrent calls on an empty token cache ask the IdP once', async () => {
    const { client } = await pair();
    const before = issuer.tokenRequests;
    const results = await Promise.all(Array.from({ length: 50 }, (_, n) => client.requestAgent({ to: 'svc', capability: 'work', payload: n })));
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(issuer.tokenRequests - before).toBe(1);
  });

  it('oidc - a token is refreshed 30 s before it expires, not earlier', async () => {
    let now = Date.now();
    const tokens = new ClientCredentialsTokens({ ...caller, tokenEndpoint: issuer.tokenEndpoint, scopes: ['rpc:call'], resource: AUDIENCE, clock: { now: () => now } });
    const before = issuer.tokenRequests;
    const first = await tokens.token();
    now += 269_000; // expires_in is 300 s: 31 s left
    expect(await tokens.token()).toBe(first);
    now += 2000; // 29 s left
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(issuer.tokenRequests - before).toBe(2);
  });

  it('oidc - the token endpoint down fails the call with a typed error; nothing is sent', async () => {
    const { client, audit } = await pair();
    await issuer.stop();
    const result = await client.requestAgent({ to: 'svc', capability: 'work', payload: 1 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_AUTH_UNAVAILABLE', retriable: true } });
    expect(audit.entries).toEqual([]);
  });

  it('oidc - a wrong client secret fails the call with a typed error that does not carry the secret', async () => {
    const { client } = await pair({ callerToSvc: callerAuth({ ...caller, clientSecret: 'wrong-secret-value' }) });
    const result = await client.requestAgent({ to: 'svc', capability: 'work', payload: 1 });
    expect(result.error?.code).toBe('EAGENTRPC_AUTH_UNAVAILABLE');
    expect(result.error?.message).toContain('HTTP 401');
    expect(JSON.stringify(result)).not.toContain('wrong-secret-value');
  });
});

describe('oidc - attack matrix: each forged or unfit token is refused with its reason', () => {
  async function refusedWith(token: string, svcAuth?: AuthProvider): Promise<string> {
    const { svc, raw, replies, audit } = await pair(svcAuth ? { svcAuth } : {});
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(foreignRequest({ auth: { kind: 'oidc', token } })) });
    await until(async () => replies.deliveries.length === 1 && (await svc.dlq.list()).length === 1);
    const [record] = await svc.dlq.list();
    const reply = decodeEnvelope(replies.deliveries[0]!.body);
    expect(reply.ok && reply.envelope.payload).toMatchObject({ ok: false, error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: record!.reason } } });
    expect(record!.kind).toBe('auth-rejected');
    expect(audit.authChecks('reject').map((e) => e['reason'])).toEqual([record!.reason]);
    return record!.reason;
  }
  const claims = (overrides = {}) => standardClaims(issuer.issuer, AUDIENCE, overrides);

  it('oidc - alg none', async () => {
    expect(await refusedWith(unsignedToken(claims()))).toBe('alg-none');
  });

  it('oidc - HS256 signed with the issuer RSA public key', async () => {
    expect(await refusedWith(hs256WithPublicKey(issuer.signingKey, claims()))).toBe('unsupported-alg');
  });

  it('oidc - an injected jku header pointing at the attacker keys', async () => {
    const attacker = await attackerKey(issuer.signingKey.kid!);
    expect(await refusedWith(await signedToken(attacker.privateJwk, claims(), { jku: 'http://127.0.0.1:1/evil-jwks' }))).toBe('malformed-token');
  });

  it('oidc - an embedded jwk header carrying the attacker key', async () => {
    const attacker = await attackerKey(issuer.signingKey.kid!);
    expect(await refusedWith(await signedToken(attacker.privateJwk, claims(), { jwk: attacker.publicJwk }))).toBe('malformed-token');
  });

  it('oidc - a kid with path traversal names no key', async () => {
    const attacker = await attackerKey('../../../../etc/passwd');
    expect(await refusedWith(await signedToken(attacker.privateJwk, claims()))).toBe('unknown-key');
  });

  it('oidc - an attacker key under the issuer kid is a bad signature', async () => {
    const attacker = await attackerKey(issuer.signingKey.kid!);
    expect(await refusedWith(await signedToken(attacker.privateJwk, claims()))).toBe('bad-signature');
  });

  it('oidc - a genuine token with a changed payload is a bad signature', async () => {
    const { access_token } = await issuer.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: ['rpc:call'] });
    expect(await refusedWith(tamperedPayload(access_token, (c) => ({ ...c, scope: 'rpc:call rpc:admin' })))).toBe('bad-signature');
  });

  it('oidc - expired beyond the clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await refusedWith(await signedToken(issuer.signingKey, claims({ iat: now - 600, exp: now - 61 })))).toBe('expired');
  });

  it('oidc - not valid yet beyond the clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await refusedWith(await signedToken(issuer.signingKey, claims({ nbf: now + 120 })))).toBe('not-yet-valid');
  });

  it('oidc - expired within the clock skew is still accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signedToken(issuer.signingKey, claims({ iat: now - 600, exp: now - 30 }));
    const verdict = await verifier().verify!(foreignRequest({ auth: { kind: 'oidc', token } }), { deliveryId: 'd' });
    expect(verdict).toEqual({ ok: true, subject: 'forger' });
  });

  it('oidc - wrong issuer', async () => {
    expect(await refusedWith(await signedToken(issuer.signingKey, claims({ iss: 'http://127.0.0.1:1' })))).toBe('wrong-issuer');
  });

  it('oidc - wrong audience', async () => {
    expect(await refusedWith(await signedToken(issuer.signingKey, claims({ aud: 'urn:agent-rpc:other' })))).toBe('wrong-audience');
  });

  it('oidc - a real token without the required scope', async () => {
    const { access_token } = await issuer.mintToken({ clientId: reader.clientId, clientSecret: reader.clientSecret, scope: ['rpc:read'] });
    expect(await refusedWith(access_token)).toBe('insufficient-scope');
  });

  it('oidc - not a JWT', async () => {
    expect(await refusedWith('not-a-jwt')).toBe('malformed-token');
  });

  it('oidc - IdP down with a cold key cache', async () => {
    const { access_token } = await issuer.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: ['rpc:call'] });
    await issuer.stop();
    expect(await refusedWith(access_token)).toBe('idp-unreachable');
  });

  it('oidc - IdP down while the key cache is fresh: still accepted', async () => {
    const { client } = await pair();
    expect((await client.requestAgent({ to: 'svc', capability: 'work', payload: 'warm' })).status).toBe('ok');
    await issuer.stop();
    const { access_token } = await issuer.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: ['rpc:call'] }).catch(() => ({ access_token: '' }));
    expect(access_token).toBe('');
    // The caller's token is cached too, so the call needs neither endpoint.
    expect((await client.requestAgent({ to: 'svc', capability: 'work', payload: 'cached' })).status).toBe('ok');
  });

  it('oidc - IdP down with an expired key cache', async () => {
    const shortCache = oidcAuth({ issuer: issuer.issuer, audience: AUDIENCE, scopes: ['rpc:call'], jwksCacheMs: 1 });
    const { access_token } = await issuer.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: ['rpc:call'] });
    const context = { deliveryId: 'd' };
    expect(await shortCache.verify!(foreignRequest({ auth: { kind: 'oidc', token: access_token } }), context)).toMatchObject({ ok: true });
    await issuer.stop();
    await new Promise((resolve) => setTimeout(resolve, 5)); // let the 1 ms cache age out
    expect(await shortCache.verify!(foreignRequest({ auth: { kind: 'oidc', token: access_token } }), context)).toMatchObject({ ok: false, reason: 'idp-unreachable' });
  });

  it('oidc - an envelope with no auth or with hmac auth', async () => {
    const { svc, raw, replies } = await pair();
    const hmac = hmacAuth({ keys: new Map([['k', Buffer.alloc(32, 7)]]), signingKeyId: 'k' });
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(foreignRequest()) });
    await raw.publish('agents.svc.requests', { body: encodeEnvelope(hmac.attach!(foreignRequest()) as ReturnType<typeof foreignRequest>) });
    await until(async () => replies.deliveries.length === 2 && (await svc.dlq.list()).length === 2);
    expect((await svc.dlq.list()).map((r) => r.reason).sort()).toEqual(['missing-auth', 'wrong-kind']);
  });
});
