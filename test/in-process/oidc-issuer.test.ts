import { connect } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, importJWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIssuer, TokenRequestError, type OidcIssuer } from '../support/oidc-issuer.js';

const TTL = 120;
const caller = { clientId: 'caller', clientSecret: 'caller-secret-0123456789abcdef', scopes: ['rpc:call', 'rpc:admin'] };
const poster = {
  clientId: 'poster',
  clientSecret: 'poster-secret-0123456789abcdef',
  scopes: ['rpc:read'],
  authMethod: 'client_secret_post' as const,
};

let idp: OidcIssuer;
beforeAll(async () => {
  idp = await startOidcIssuer({
    clients: [caller, poster],
    resource: 'agent://reviewer',
    scopes: ['rpc:call', 'rpc:admin', 'rpc:read'],
    accessTokenTtlSeconds: TTL,
  });
});
afterAll(() => idp.close());

/** Resolves with the error code of a plain TCP connect to the issuer's port. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('oidc issuer - a real OpenID provider on loopback', () => {
  it('oidc issuer - issues a JWT access token for client credentials', async () => {
    const minted = await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: ['rpc:call', 'rpc:admin'] });
    expect(minted).toMatchObject({ token_type: 'Bearer', expires_in: TTL });
    expect(minted.scope?.split(' ').sort()).toEqual(['rpc:admin', 'rpc:call']);

    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    const { payload, protectedHeader } = await jwtVerify(minted.access_token, jwks, {
      issuer: idp.issuer,
      audience: 'agent://reviewer',
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader.kid).toBe(idp.signingKey.kid);
    expect(payload.aud).toBe(idp.audience);
    expect(payload.client_id).toBe(caller.clientId);
    expect(payload.sub).toBe(caller.clientId);
    expect(typeof payload.jti).toBe('string');
    expect(String(payload.scope).split(' ').sort()).toEqual(['rpc:admin', 'rpc:call']);
    expect(payload.exp! - payload.iat!).toBe(TTL);
  });

  it('oidc issuer - grants only the requested scopes the client is allowed, and none when none is asked', async () => {
    const one = await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call' });
    expect(one.scope).toBe('rpc:call');
    const none = await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret });
    expect(none.scope).toBeUndefined();
    const { payload } = await jwtVerify(none.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), { issuer: idp.issuer, audience: idp.audience });
    expect(payload.scope).toBeUndefined();
    const refused = await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:read' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TokenRequestError);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  it('oidc issuer - authenticates a client_secret_post client', async () => {
    const minted = await idp.mintToken({ clientId: poster.clientId, clientSecret: poster.clientSecret, scope: 'rpc:read' });
    expect(minted.scope).toBe('rpc:read');
  });

  it('oidc issuer - rejects a wrong client secret', async () => {
    const error = await idp.mintToken({ clientId: caller.clientId, clientSecret: 'not-the-secret', scope: 'rpc:call' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('oidc issuer - rejects an unknown resource indicator', async () => {
    const error = await idp
      .mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call', resource: 'agent://someone-else' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('oidc issuer - counts token requests', async () => {
    const before = idp.tokenRequests;
    await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call' });
    await idp.mintToken({ clientId: caller.clientId, clientSecret: 'wrong' }).catch(() => undefined);
    await fetch(idp.discoveryUrl).then((response) => response.arrayBuffer());
    await fetch(idp.jwksUri).then((response) => response.arrayBuffer());
    expect(idp.tokenRequests - before).toBe(2);
  });

  it('oidc issuer - the discovery document lists the jwks_uri and token_endpoint', async () => {
    const response = await fetch(idp.discoveryUrl);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: idp.issuer, jwks_uri: idp.jwksUri, token_endpoint: idp.tokenEndpoint });
    expect(discovery.grant_types_supported).toContain('client_credentials');
  });

  it('oidc issuer - publishes the public halves of its RSA and EC keys', async () => {
    const jwks = (await (await fetch(idp.jwksUri)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.map((key) => key.kid).sort()).toEqual(idp.privateJwks.keys.map((key) => key.kid).sort());
    expect(jwks.keys.map((key) => key.kty).sort()).toEqual(['EC', 'RSA']);
    for (const key of jwks.keys) expect(key.d).toBeUndefined();
  });

  it('oidc issuer - its private key signs tokens that verify against its JWKS', async () => {
    const key = idp.signingKey;
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ scope: 'rpc:call', client_id: 'forger' })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid!, typ: 'at+jwt' })
      .setIssuer(idp.issuer)
      .setAudience('agent://elsewhere')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importJWK(key, 'RS256'));
    expect(decodeProtectedHeader(forged).kid).toBe(key.kid);
    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    await expect(jwtVerify(forged, jwks, { issuer: idp.issuer, audience: 'agent://elsewhere' })).resolves.toBeDefined();
    await expect(jwtVerify(forged, jwks, { issuer: idp.issuer, audience: idp.audience })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  });

  it('oidc issuer - stop makes it unreachable and restart brings it back on the same port', async () => {
    const port = idp.port;
    await idp.stop();
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
    await expect(idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await idp.start();
    expect(idp.port).toBe(port);
    const minted = await idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call' });
    const { payload } = await jwtVerify(minted.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), { issuer: idp.issuer, audience: idp.audience });
    expect(payload.iss).toBe(`http://127.0.0.1:${port}`);

    await idp.restart();
    await expect(idp.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call' })).resolves.toMatchObject({ scope: 'rpc:call' });
  });

  it('oidc issuer - an https resource identifier is the audience verbatim', async () => {
    const other = await startOidcIssuer({ clients: [caller], resource: 'https://svc.example.test/api', scopes: ['rpc:call', 'rpc:admin'] });
    try {
      const minted = await other.mintToken({ clientId: caller.clientId, clientSecret: caller.clientSecret, scope: 'rpc:call' });
      expect(minted.expires_in).toBe(300);
      const { payload } = await jwtVerify(minted.access_token, createRemoteJWKSet(new URL(other.jwksUri)), {
        issuer: other.issuer,
        audience: 'https://svc.example.test/api',
      });
      expect(payload.exp! - payload.iat!).toBe(300);
      expect(other.issuer).not.toBe(idp.issuer);
    } finally {
      await other.close();
    }
  });
});
