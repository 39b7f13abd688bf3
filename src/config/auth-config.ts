import { z } from 'zod';

/**
 * The `auth` blocks of the config files. A peer's block (rpc-peers.yaml) says how this
 * agent authenticates to that peer, and, for providers that verify, how what the peer
 * sends is checked. `rpc.auth` (agent.yaml) says what this agent requires from everyone
 * else. Secrets are only ever references (`...Ref` fields), never inline values.
 */
const url = z.url({ protocol: /^https?$/ });
const scopes = z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be an OAuth2 scope token')).default([]);
const jwtVerification = {
  issuer: z.string().min(1),
  audience: z.string().min(1),
  jwksUri: url.optional(),
  scopes,
  jwksCacheMs: z.number().int().min(0).optional(),
  clockSkewSeconds: z.number().int().min(0).max(600).optional(),
};
const hmac = {
  keysRef: z.string().min(1),
  windowMs: z.number().int().min(1000).optional(),
};

export const peerAuthSchema = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('internal') }),
  z.strictObject({ provider: z.literal('hmac'), keyId: z.string().min(1), ...hmac }),
  z.strictObject({ provider: z.literal('oidc'), ...jwtVerification }),
  z.strictObject({
    provider: z.literal('oauth2-client'),
    tokenEndpoint: url,
    clientId: z.string().min(1),
    clientSecretRef: z.string().min(1),
    scopes,
    /** RFC 8707 resource indicator (the peer's audience). */
    resource: z.string().min(1).optional(),
  }),
]);
export type PeerAuthConfig = z.infer<typeof peerAuthSchema>;

export const receiverAuthSchema = z.discriminatedUnion('required', [
  z.strictObject({ required: z.literal('internal') }),
  z.strictObject({ required: z.literal('hmac'), signingKeyId: z.string().min(1).optional(), ...hmac }),
  // Tokens minted with oauth2-client are JWTs from the issuer: `oidc` verifies both kinds.
  z.strictObject({ required: z.literal('oidc'), ...jwtVerification }),
]);
export type ReceiverAuthConfig = z.infer<typeof receiverAuthSchema>;
