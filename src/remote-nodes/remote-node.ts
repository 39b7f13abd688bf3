import type { SecretValue } from '../secrets/index.js';

export const REMOTE_AUTH_TYPES = ['none', 'basic', 'token'] as const;
export type RemoteAuthType = (typeof REMOTE_AUTH_TYPES)[number];

/** Default per-node limit on one remote session, start to finish. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 5 * 60_000;

/**
 * Another agent-rpc daemon reachable over HTTP(S) through its session API. Credentials
 * are SecretValues: they print as `[redacted]` and are revealed only to build the
 * Authorization header.
 */
export interface RemoteNode {
  readonly name: string;
  readonly description: string;
  /** e.g. `https://node-b.example:9464` (no trailing slash). */
  readonly apiBaseUrl: string;
  readonly authType: RemoteAuthType;
  /** `token`: the bearer token. `basic`: `user:password`. Absent for `none`. */
  readonly authToken?: SecretValue;
  readonly skipTlsVerify: boolean;
  /** Limit on one remote session; default DEFAULT_REMOTE_TIMEOUT_MS. */
  readonly timeoutMs: number;
  /** Where the definition comes from; on a name collision the store wins. */
  readonly source: 'config' | 'store';
}

/** Looks up remote nodes by name: config file entries merged with the managed store. */
export interface RemoteNodeResolver {
  /** Every node, sorted by name. */
  list(): Promise<RemoteNode[]>;
  /** Undefined when no node has this name. */
  get(name: string): Promise<RemoteNode | undefined>;
}
