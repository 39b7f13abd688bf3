import { z } from 'zod';
import { alias, seconds } from '../yaml/index.js';

/**
 * The `auth` blocks of the config files. A peer's block (rpc-peers.yaml) says how this
 * agent authenticates to that peer, and, for providers that verify, how what the peer
 * sends is checked. `rpc.auth` (agent.yaml) says what this agent requires from everyone
 * else. Secrets are only ever references (`...Ref` fields), never inline values.
 */
const url = z.url({ protocol: /^https?$/ });
const scopes = z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be an OAuth2 scope token')).default([]);
const requiredScopes = scopes.describe('Scopes every token must carry (all of them).');
const jwtVerification = {
  issuer: z.string().min(1).describe('The token issuer (`iss`); its discovery document names the key set.'),
  audience: z.string().min(1).describe('The audience (`aud`) tokens must be minted for.'),
  jwksUri: url.optional().describe("Pinned key set URL. Default: `jwks_uri` of the issuer's discovery document."),
  scopes: requiredScopes,
  jwksCacheMs: z.number().int().min(0).optional().describe('How long fetched keys are trusted without refetching. Default 300,000.'),
  clockSkewMs: alias(z.int().min(0).max(600_000).optional().describe('Tolerance on `exp`, `nbf` and `iat`, in milliseconds (at most 10 minutes). Default 60,000.'), seconds('clockSkewSeconds')),
};
const hmac = {
  keysRef: z.string().min(1).describe('A secret reference to the key ring: JSON `{"keys": {"<keyId>": "base64:..."}}`.'),
  windowMs: z.number().int().min(1000).optional().describe('How far a signing time may be from now. Default 300,000.'),
};

export const peerAuthSchema = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('internal') }),
  z.strictObject({ provider: z.literal('hmac'), keyId: z.string().min(1).describe('The key of the ring this agent signs with for this peer.'), ...hmac }),
  z.strictObject({ provider: z.literal('oidc'), ...jwtVerification }),
  z.strictObject({
    provider: z.literal('oauth2-client'),
    tokenEndpoint: url.describe('Where client-credentials tokens are minted.'),
    clientId: z.string().min(1).describe("This agent's OAuth2 client id."),
    clientSecretRef: z.string().min(1).describe('A secret reference to the client secret.'),
    scopes: scopes.describe('Scopes requested for the token.'),
    resource: z.string().min(1).optional().describe("RFC 8707 resource indicator (the peer's audience)."),
  }),
]);
export type PeerAuthConfig = z.infer<typeof peerAuthSchema>;

export const receiverAuthSchema = z.discriminatedUnion('required', [
  z.strictObject({ required: z.literal('internal') }),
  z.strictObject({
    required: z.literal('hmac'),
    signingKeyId: z.string().min(1).optional().describe('The key this agent signs its own envelopes with. Without it the agent only verifies.'),
    ...hmac,
    replay: z
      .strictObject({
        store: z
          .enum(['memory', 'redis'])
          .describe("`memory`: each process remembers what it accepted. `redis`: the agent's replicas share it, in the Redis of `guard.store` (which must be set)."),
        keyPrefix: z.string().min(1).optional().describe('Prefix of every replay key in Redis. Default `agent-rpc:replay:`.'),
      })
      .optional()
      .describe('Where accepted envelopes are remembered until the window has passed, so a replay is refused. Default: in this process (`memory`).'),
  }),
  // Tokens minted with oauth2-client are JWTs from the issuer: `oidc` verifies both kinds.
  z.strictObject({ required: z.literal('oidc'), ...jwtVerification }),
]);
export type ReceiverAuthConfig = z.infer<typeof receiverAuthSchema>;
