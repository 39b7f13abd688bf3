import { z } from 'zod';
import { authTokenRule, remoteNodeFields } from '../remote-nodes-config.js';
import { apiError, type ApiResponse, type ApiRoute } from '../../http-server/index.js';
import type { RemoteNode, RemoteNodeResolver } from '../index.js';
import type { RemoteNodeStore } from '../remote-node-store.js';

const nodeBody = z.strictObject({ ...remoteNodeFields, auth_token: z.string().min(1).optional() }).superRefine(authTokenRule);

/** What the API shows of a node: never its credential. */
function view(node: RemoteNode): Record<string, unknown> {
  return {
    name: node.name,
    description: node.description,
    api_base_url: node.apiBaseUrl,
    auth_type: node.authType,
    has_auth_token: node.authToken !== undefined,
    skip_tls_verify: node.skipTlsVerify,
    timeout: node.timeoutMs,
    source: node.source,
  };
}

function parseBody(body: unknown, name?: string): { ok: true; value: z.infer<typeof nodeBody> } | { ok: false; response: ApiResponse } {
  const parsed = nodeBody.safeParse(name === undefined ? body : { ...(body as object), name });
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, response: apiError(400, `bad request: ${issue.path.join('.') || 'body'}: ${issue.message}`) };
}

/**
 * The admin API of the node store (`admin` permission): create, list, read, replace and
 * delete stored nodes. Listing and reading show config nodes too (with `source`); only
 * stored ones can be changed — a stored node of the same name overrides a config one.
 */
export function remoteNodeRoutes(store: RemoteNodeStore | undefined, resolver: RemoteNodeResolver): ApiRoute[] {
  const unconfigured = apiError(503, 'remote node store is not configured (agent.yaml remoteNodeStore.keyRef)');
  return [
    {
      method: 'POST',
      pattern: '/api/v1/remote-nodes',
      permission: 'admin',
      async handle({ body }) {
        if (!store) return unconfigured;
        const parsed = parseBody(body);
        if (!parsed.ok) return parsed.response;
        if (!(await store.put(parsed.value, false))) return apiError(409, `conflict: remote node ${parsed.value.name} exists`);
        return { status: 201, body: view(store.get(parsed.value.name)!) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/remote-nodes',
      permission: 'admin',
      async handle() {
        return { status: 200, body: { nodes: (await resolver.list()).map(view), unreadable: store?.unreadable() ?? [] } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/remote-nodes/:name',
      permission: 'admin',
      async handle({ params }) {
        const broken = store?.unreadable().find((entry) => entry.name === params.name);
        if (broken) return apiError(422, `unprocessable: remote node ${broken.name} in the store cannot be read (${broken.code}); replace it with PUT or remove it with DELETE`);
        const node = await resolver.get(params.name!);
        return node ? { status: 200, body: view(node) } : apiError(404, 'not found');
      },
    },
    {
      method: 'PUT',
      pattern: '/api/v1/remote-nodes/:name',
      permission: 'admin',
      async handle({ params, body }) {
        if (!store) return unconfigured;
        const parsed = parseBody(body, params.name);
        if (!parsed.ok) return parsed.response;
        const existed = store.has(parsed.value.name);
        await store.put(parsed.value);
        return { status: existed ? 200 : 201, body: view(store.get(parsed.value.name)!) };
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/v1/remote-nodes/:name',
      permission: 'admin',
      async handle({ params }) {
        if (!store) return unconfigured;
        if (await store.delete(params.name!)) return { status: 204, body: undefined };
        const configured = await resolver.get(params.name!);
        return configured ? apiError(409, `conflict: remote node ${params.name} is defined in agent.yaml, not in the store`) : apiError(404, 'not found');
      },
    },
  ];
}
