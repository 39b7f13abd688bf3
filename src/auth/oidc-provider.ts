import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { MaybePromise } from '../maybe-promise.js';
import { JwtVerifier, type JwtVerifyOptions } from './jwt-verifier.js';
import type { AuthProvider, AuthVerdict } from './provider.js';
import { deny } from './reasons.js';

export interface OidcAuthOptions extends JwtVerifyOptions {
  /**
   * Where this node's own token comes from when it sends (a workload identity token, a
   * token minted elsewhere). Without it the provider only verifies.
   */
  readonly token?: () => MaybePromise<string>;
}

/**
 * Verifies JWTs from an OpenID issuer: its JWKS (discovered or pinned, cached), issuer,
 * audience, every required scope, 60 s of clock skew, asymmetric algorithms only. Tokens
 * minted by an OAuth2 client (`oauth2-client`) are JWTs from the same issuer and are
 * verified the same way.
 */
export function oidcAuth(options: OidcAuthOptions): AuthProvider {
  const verifier = new JwtVerifier(options);
  const tokenSource = options.token;
  const provider: AuthProvider = {
    name: 'oidc',
    async verify(envelope: AgentRpcEnvelope): Promise<AuthVerdict> {
      const auth = envelope.auth;
      if (auth === undefined) return deny('missing-auth', 'this agent requires an OIDC token');
      if (auth.kind !== 'oidc' && auth.kind !== 'oauth2-client') {
        return deny('wrong-kind', `this agent requires an OIDC token, the envelope carries ${auth.kind}`);
      }
      return verifier.verify(auth.token);
    },
  };
  if (tokenSource === undefined) return provider;
  return {
    ...provider,
    async attach(envelope: AgentRpcEnvelope): Promise<AgentRpcEnvelope> {
      return { ...envelope, auth: { kind: 'oidc', token: await tokenSource() } };
    },
  };
}
