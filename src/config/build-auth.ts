import { hmacAuth, internalAuth, type AuthProvider, type SharedReplayStore } from '../auth/index.js';
import { oauth2ClientAuth } from '../auth/oauth2-client-provider.js';
import { oidcAuth } from '../auth/oidc-provider.js';
import type { Clock } from '../clock.js';
import { parseKeyRing, parseSecretRef, type SecretValue } from '../secrets/index.js';
import type { PeerAuthConfig, ReceiverAuthConfig } from './auth-config.js';
import { ConfigError } from '../yaml/index.js';

export interface AuthBuildContext {
  /** Resolves a secret reference (`${env:..}`, `secret://`, `file:`, `vault:`). */
  readonly resolveSecret: (ref: string) => Promise<SecretValue>;
  /** For errors: the config file and the field path of the auth block. */
  readonly file: string;
  readonly field: string;
  /** Line of a field inside the auth block (or of the block). */
  readonly lineOf?: (field: string) => number | undefined;
  readonly clock?: Clock;
  /** The shared replay memory of an `hmac` receiver whose config asks for one (`replay.store: redis`). */
  readonly replayStore?: SharedReplayStore;
  readonly onReplayStoreError?: (error: unknown) => void;
}

/** The provider for one peer's `auth` block in rpc-peers.yaml. */
export async function buildPeerAuth(config: PeerAuthConfig, context: AuthBuildContext): Promise<AuthProvider> {
  switch (config.provider) {
    case 'internal':
      return internalAuth;
    case 'hmac': {
      const keys = await keyRing(config.keysRef, context);
      return guarded(context, 'keyId', () => hmacAuth({ keys, signingKeyId: config.keyId, windowMs: config.windowMs, clock: context.clock }));
    }
    case 'oidc':
      return oidcAuth({ ...config, clock: context.clock });
    case 'oauth2-client': {
      const clientSecret = await secret(config.clientSecretRef, 'clientSecretRef', context);
      const { tokenEndpoint, clientId, scopes, resource } = config;
      return oauth2ClientAuth({ tokenEndpoint, clientId, clientSecret, scopes, resource, clock: context.clock });
    }
  }
}

/** The node's own provider from `rpc.auth` in agent.yaml: what it requires of everyone. */
export async function buildReceiverAuth(config: ReceiverAuthConfig, context: AuthBuildContext): Promise<AuthProvider> {
  switch (config.required) {
    case 'internal':
      return internalAuth;
    case 'hmac': {
      const keys = await keyRing(config.keysRef, context);
      const { replayStore, onReplayStoreError } = context;
      const shared = replayStore ? { replayStore, ...(onReplayStoreError ? { onReplayStoreError } : {}) } : {};
      return guarded(context, 'signingKeyId', () => hmacAuth({ keys, signingKeyId: config.signingKeyId, windowMs: config.windowMs, clock: context.clock, ...shared }));
    }
    case 'oidc': {
      const { required: _required, ...verification } = config;
      return oidcAuth({ ...verification, clock: context.clock });
    }
  }
}

async function secret(ref: string, field: string, context: AuthBuildContext): Promise<SecretValue> {
  try {
    parseSecretRef(ref, field);
    return await context.resolveSecret(ref);
  } catch (error) {
    throw new ConfigError(context.file, context.lineOf?.(field), `${context.field}.${field}`, error instanceof Error ? error.message : String(error));
  }
}

async function keyRing(ref: string, context: AuthBuildContext): Promise<ReadonlyMap<string, Buffer>> {
  const value = await secret(ref, 'keysRef', context);
  return guarded(context, 'keysRef', () => parseKeyRing(value, ref));
}

/** Provider constructors throw TypeError/RangeError naming their option; say which file and field it was. */
function guarded<T>(context: AuthBuildContext, field: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new ConfigError(context.file, context.lineOf?.(field), `${context.field}.${field}`, error instanceof Error ? error.message : String(error));
  }
}
