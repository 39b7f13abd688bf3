import type { AgentRpcEnvelope } from '../envelope/index.js';
import { ClientCredentialsTokens, type ClientCredentialsOptions } from './client-credentials.js';
import { oidcAuth, type OidcAuthOptions } from './oidc-provider.js';
import type { AuthProvider } from './provider.js';

export interface OAuth2ClientAuthOptions extends ClientCredentialsOptions {
  /**
   * How tokens this node receives are verified (the same JWKS path as `oidc`). Without
   * it the provider only attaches, and the node's own provider verifies.
   */
  readonly verify?: Omit<OidcAuthOptions, 'token'>;
}

/** Attaches an access token minted with the client credentials grant (see ClientCredentialsTokens). */
export function oauth2ClientAuth(options: OAuth2ClientAuthOptions): AuthProvider {
  const tokens = new ClientCredentialsTokens(options);
  const scope = options.scopes?.join(' ');
  const verify = options.verify === undefined ? undefined : oidcAuth(options.verify).verify;
  return {
    name: 'oauth2-client',
    async attach(envelope: AgentRpcEnvelope): Promise<AgentRpcEnvelope> {
      const token = await tokens.token();
      return { ...envelope, auth: scope === undefined ? { kind: 'oauth2-client', token } : { kind: 'oauth2-client', token, scope } };
    },
    ...(verify === undefined ? {} : { verify }),
  };
}
