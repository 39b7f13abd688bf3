import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denyForJwtError } from '../../src/auth/jwt-errors.js';
import { JwksSource } from '../../src/auth/jwks-source.js';

let server: Server;
let base: string;

beforeAll(async () => {
  // An issuer that is up but broken: discovery answers 503, or names another issuer.
  server = createServer((request, response) => {
    if (request.url === '/down/.well-known/openid-configuration') {
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'https://someone-else.example', jwks_uri: `${base}/keys` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const lookup = (source: JwksSource): Promise<unknown> => source.key({ alg: 'RS256', kid: 'k' }, { payload: '', signature: '' }).catch((error: unknown) => error);

describe('auth - JWKS source', () => {
  it.each([
    ['a discovery document that answers 503', 'down'],
    ['a discovery document naming another issuer', 'wrong'],
  ])('auth - %s is EAGENTRPC_IDP_UNREACHABLE, which refuses the token as idp-unreachable', async (_case, path) => {
    const error = await lookup(new JwksSource({ issuer: `${base}/${path}` }));
    expect(error).toMatchObject({ code: 'EAGENTRPC_IDP_UNREACHABLE', retriable: true });
    expect(denyForJwtError(error)).toMatchObject({ ok: false, reason: 'idp-unreachable' });
  });
});
