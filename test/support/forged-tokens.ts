/** Tokens an attacker (or a misconfigured issuer) would present, for the attack matrix. */
import { createHmac, createPublicKey } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export function standardClaims(issuer: string, audience: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { iss: issuer, aud: audience, sub: 'forger', client_id: 'forger', scope: 'rpc:call', iat: now, exp: now + 300, ...overrides };
}

/** Signed with `key` (the issuer's real private JWK or an attacker's), with any header. */
export async function signedToken(key: JWK, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, ...header }).sign(await importJWK(key, 'RS256'));
}

export function unsignedToken(claims: JWTPayload): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

/** The classic confusion attack: HS256 keyed with the issuer's public key in PEM form. */
export function hs256WithPublicKey(issuerKey: JWK, claims: JWTPayload): string {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = issuerKey;
  const pem = createPublicKey({ key: publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const signingInput = `${b64({ alg: 'HS256', kid: issuerKey.kid })}.${b64(claims)}`;
  return `${signingInput}.${createHmac('sha256', pem).update(signingInput).digest('base64url')}`;
}

export async function attackerKey(kid: string): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateJwk: { ...(await exportJWK(privateKey)), kid }, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

/** A genuine token whose payload was changed after signing. */
export function tamperedPayload(token: string, change: (claims: JWTPayload) => JWTPayload): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as JWTPayload;
  return `${header}.${b64(change(claims))}.${signature}`;
}
