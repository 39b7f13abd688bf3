import { z } from 'zod';
import { DEFAULT_REMOTE_TIMEOUT_MS, REMOTE_AUTH_TYPES, type RemoteNode } from './remote-node.js';
import type { SecretValue } from '../secrets/index.js';
import { alias, ConfigError, type LoadedYaml } from '../yaml/index.js';

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

// One validator per field, shared by the config file and the admin API.
const name = z.string().regex(REMOTE_NODE_NAME_RE, 'must be 1-63 characters of [a-z0-9_-], starting with a letter or digit');
const description = z.string().max(1_000).default('');
const apiBaseUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).transform((url) => url.replace(/\/+$/, ''));
const authType = z.enum(REMOTE_AUTH_TYPES).default('token');
const skipTlsVerify = z.boolean().default(false);
const timeout = durationSchema.default(DEFAULT_REMOTE_TIMEOUT_MS);

/** The body fields of the node store's admin API (RFC 027's names; `auth_token` there is the token itself). */
export const remoteNodeFields = { name, description, api_base_url: apiBaseUrl, auth_type: authType, skip_tls_verify: skipTlsVerify, timeout };

/** `auth_token` is required for basic and token nodes and forbidden for `none`. */
export const authTokenRule = (node: { auth_type: string; auth_token?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (node.auth_type === 'none' && node.auth_token !== undefined) ctx.addIssue({ code: 'custom', path: ['auth_token'], message: 'must not be set when auth_type is none' });
  if (node.auth_type !== 'none' && node.auth_token === undefined) ctx.addIssue({ code: 'custom', path: ['auth_token'], message: `is required when auth_type is ${node.auth_type}` });
};

/** One entry of agent.yaml `remoteNodes`; the snake_case names of RFC 027 are aliases. */
const remoteNodeConfigSchema = z
  .strictObject({
    name: name.describe('The name the node is addressed by (`remote_agent` tool, `kind: http` routes).'),
    description: description.describe('What the node is for; shown to models by `list_remote_nodes`.'),
    apiBaseUrl: alias(apiBaseUrl.describe("The node's HTTP API, e.g. `https://node-b.example:9464` (a trailing slash is dropped)."), 'api_base_url'),
    authType: alias(authType.describe('How this agent authenticates to the node: `none`, `basic` or `token`. Only `token` nodes are usable by the tools.'), 'auth_type'),
    authTokenRef: alias(
      z.string().min(1).optional().describe('A secret reference (`${env:…}`, `secret://`, `file:`, `vault:`) to the bearer token (`token`) or `user:password` (`basic`); required unless `authType` is `none`.'),
      'auth_token',
    ),
    skipTlsVerify: alias(skipTlsVerify.describe('Accept any TLS certificate: only for test setups with self-signed certificates.'), 'skip_tls_verify'),
    timeout: timeout.describe('Limit on one remote session, start to finish: milliseconds or a duration (`90s`, `10m`).'),
  })
  .superRefine((node, ctx) => {
    if (node.authType === 'none' && node.authTokenRef !== undefined) ctx.addIssue({ code: 'custom', path: ['authTokenRef'], message: 'must not be set when authType is none' });
    if (node.authType !== 'none' && node.authTokenRef === undefined) ctx.addIssue({ code: 'custom', path: ['authTokenRef'], message: `is required when authType is ${node.authType}` });
  });

/** agent.yaml `remoteNodes`: other nodes' session APIs this agent may call. */
export const remoteNodesConfigSchema = z.array(remoteNodeConfigSchema).superRefine((nodes, ctx) => {
  const seen = new Set<string>();
  nodes.forEach((node, index) => {
    if (seen.has(node.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `${node.name} is listed twice` });
    seen.add(node.name);
  });
});
export type RemoteNodesConfig = z.infer<typeof remoteNodesConfigSchema>;

/** agent.yaml `remoteNodeStore`: the key that encrypts stored credentials (32 bytes, base64 or 64 hex digits). */
export const remoteNodeStoreConfigSchema = z.strictObject({
  keyRef: z.string().min(1).describe('A secret reference to the key (32 bytes, base64 or 64 hex digits) that encrypts stored credentials.'),
});

/** The config's nodes with their tokens resolved; errors name the file, line and field. */
export async function remoteNodesFromConfig(
  loaded: LoadedYaml<{ remoteNodes?: RemoteNodesConfig | undefined }>,
  resolveSecret: (ref: string) => Promise<SecretValue>,
): Promise<RemoteNode[]> {
  const nodes: RemoteNode[] = [];
  for (const [index, entry] of (loaded.value.remoteNodes ?? []).entries()) {
    let authToken: SecretValue | undefined;
    if (entry.authTokenRef !== undefined) {
      try {
        authToken = await resolveSecret(entry.authTokenRef);
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        throw new ConfigError(loaded.file, loaded.lineOf(['remoteNodes', index, 'authTokenRef']), `remoteNodes[${index}].authTokenRef`, problem);
      }
    }
    nodes.push({
      name: entry.name,
      description: entry.description,
      apiBaseUrl: entry.apiBaseUrl,
      authType: entry.authType,
      ...(authToken ? { authToken } : {}),
      skipTlsVerify: entry.skipTlsVerify,
      timeoutMs: entry.timeout,
      source: 'config',
    });
  }
  return nodes;
}
