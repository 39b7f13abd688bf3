import { z } from 'zod';
import { DEFAULT_REMOTE_TIMEOUT_MS, REMOTE_AUTH_TYPES, type RemoteNode } from '../remote-nodes/remote-node.js';
import type { SecretValue } from '../secrets/secret-value.js';
import { ConfigError } from './config-error.js';
import type { LoadedYaml } from './load-yaml.js';

const DURATION_RE = /^(\d+)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds as an integer, or a duration string: `500ms`, `90s`, `5m`, `1h`. */
export const durationSchema = z.union([
  z.int().min(1),
  z.string().regex(DURATION_RE, 'must be milliseconds or a duration such as 90s or 5m').transform((text) => {
    const [, amount, unit] = DURATION_RE.exec(text)!;
    return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }),
]);

export const REMOTE_NODE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The fields of one remote node, as in agent.yaml `remote_nodes` and the admin API. */
export const remoteNodeFields = {
  name: z.string().regex(REMOTE_NODE_NAME_RE, 'must be 1-63 characters of [a-z0-9_-], starting with a letter or digit'),
  description: z.string().max(1_000).default(''),
  api_base_url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).transform((url) => url.replace(/\/+$/, '')),
  auth_type: z.enum(REMOTE_AUTH_TYPES).default('token'),
  skip_tls_verify: z.boolean().default(false),
  timeout: durationSchema.default(DEFAULT_REMOTE_TIMEOUT_MS),
};

/** `auth_token` is required for basic and token nodes and forbidden for `none`. */
export const authTokenRule = (node: { auth_type: string; auth_token?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (node.auth_type === 'none' && node.auth_token !== undefined) ctx.addIssue({ code: 'custom', path: ['auth_token'], message: 'must not be set when auth_type is none' });
  if (node.auth_type !== 'none' && node.auth_token === undefined) ctx.addIssue({ code: 'custom', path: ['auth_token'], message: `is required when auth_type is ${node.auth_type}` });
};

/** agent.yaml `remote_nodes`: `auth_token` is a secret reference (`${env:…}`, `secret://`, `file:`, `vault:`), never the token. */
export const remoteNodesConfigSchema = z
  .array(z.strictObject({ ...remoteNodeFields, auth_token: z.string().min(1).optional() }).superRefine(authTokenRule))
  .superRefine((nodes, ctx) => {
    const seen = new Set<string>();
    nodes.forEach((node, index) => {
      if (seen.has(node.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `${node.name} is listed twice` });
      seen.add(node.name);
    });
  });
export type RemoteNodesConfig = z.infer<typeof remoteNodesConfigSchema>;

/** agent.yaml `remote_node_store`: the key that encrypts stored credentials (32 bytes, base64 or 64 hex digits). */
export const remoteNodeStoreConfigSchema = z.strictObject({ keyRef: z.string().min(1) });

/** The config's nodes with their tokens resolved; errors name the file, line and field. */
export async function remoteNodesFromConfig(
  loaded: LoadedYaml<{ remote_nodes?: RemoteNodesConfig }>,
  resolveSecret: (ref: string) => Promise<SecretValue>,
): Promise<RemoteNode[]> {
  const nodes: RemoteNode[] = [];
  for (const [index, entry] of (loaded.value.remote_nodes ?? []).entries()) {
    let authToken: SecretValue | undefined;
    if (entry.auth_token !== undefined) {
      try {
        authToken = await resolveSecret(entry.auth_token);
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        throw new ConfigError(loaded.file, loaded.lineOf(['remote_nodes', index, 'auth_token']), `remote_nodes[${index}].auth_token`, problem);
      }
    }
    nodes.push({
      name: entry.name,
      description: entry.description,
      apiBaseUrl: entry.api_base_url,
      authType: entry.auth_type,
      ...(authToken ? { authToken } : {}),
      skipTlsVerify: entry.skip_tls_verify,
      timeoutMs: entry.timeout,
      source: 'config',
    });
  }
  return nodes;
}
