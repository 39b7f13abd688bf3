import { describe, expect, it } from 'vitest';
import { ApiTokens } from '../../src/http-server/api-tokens.js';
import { roleCan, ROLES } from '../../src/auth/roles.js';
import { matchRoute } from '../../src/http-server/route-match.js';
import type { ApiRoute } from '../../src/http-server/api-route.js';
import { SecretValue } from '../../src/secrets/secret-value.js';

describe('node API building blocks', () => {
  it('roles - execute needs operator or above, admin only admin, everyone reads', () => {
    expect(ROLES.filter((role) => roleCan(role, 'execute'))).toEqual(['operator', 'manager', 'admin']);
    expect(ROLES.filter((role) => roleCan(role, 'admin'))).toEqual(['admin']);
    expect(ROLES.every((role) => roleCan(role, 'read'))).toBe(true);
  });

  it('api tokens - a bearer token maps to its user and role; anything else to nobody', () => {
    const tokens = new ApiTokens([
      { user: 'alice', role: 'operator', token: new SecretValue('tok-a') },
      { user: 'root', role: 'admin', token: new SecretValue('tok-r') },
    ]);
    expect(tokens.authenticate('Bearer tok-a')).toEqual({ user: 'alice', role: 'operator' });
    expect(tokens.authenticate('bearer tok-r')).toEqual({ user: 'root', role: 'admin' });
    for (const header of [undefined, '', 'tok-a', 'Bearer tok-b', 'Basic dG9rLWE=', 'Bearer tok-a extra']) expect(tokens.authenticate(header)).toBeUndefined();
    expect(() => new ApiTokens([{ user: 'a', role: 'viewer', token: new SecretValue('x') }, { user: 'b', role: 'admin', token: new SecretValue('x') }])).toThrow(TypeError);
  });

  it('route match - named segments are decoded; a wrong method lists the allowed ones', () => {
    const handle = async () => ({ status: 200, body: null });
    const routes: ApiRoute[] = [
      { method: 'GET', pattern: '/api/v1/remote-nodes/:name', permission: 'admin', handle },
      { method: 'DELETE', pattern: '/api/v1/remote-nodes/:name', permission: 'admin', handle },
    ];
    expect(matchRoute(routes, 'GET', '/api/v1/remote-nodes/node%20b')).toMatchObject({ params: { name: 'node b' } });
    expect(matchRoute(routes, 'PUT', '/api/v1/remote-nodes/x')).toEqual({ allowed: ['GET', 'DELETE'] });
    expect(matchRoute(routes, 'GET', '/api/v1/remote-nodes')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/api/v1/remote-nodes/%E0%A4%A')).toBeUndefined();
  });
});
