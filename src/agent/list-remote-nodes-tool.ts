import type { RemoteNodeResolver } from '../remote-nodes/remote-node.js';
import { roleCan } from '../server/roles.js';
import { defineTool, permissionDenied, type Tool } from './tool.js';

export const LIST_REMOTE_NODES = 'list_remote_nodes';

/**
 * `list_remote_nodes({name_filter?})`: the nodes `remote_agent` can reach (token nodes),
 * by name and description, from the resolver — no network call, no credential.
 */
export function listRemoteNodesTool(resolver: RemoteNodeResolver): Tool {
  return defineTool<{ name_filter?: string }>({
    name: LIST_REMOTE_NODES,
    description: 'Lists the remote agent nodes this agent can delegate to with remote_agent: their names and descriptions. Optionally filters by a case-insensitive substring of the name.',
    parameters: {
      type: 'object',
      properties: { name_filter: { type: 'string', description: 'Only nodes whose name contains this text (case-insensitive).' } },
      additionalProperties: false,
    },
    async run({ name_filter }, context) {
      if (!roleCan(context.principal.role, 'execute')) return permissionDenied(LIST_REMOTE_NODES);
      context.audit.append({ kind: 'remote_nodes_list', agentId: context.agentId, user: context.principal.user, name_filter: name_filter ?? null });
      const filter = name_filter?.toLowerCase();
      const nodes = (await resolver.list()).filter((node) => node.authType === 'token' && (filter === undefined || node.name.toLowerCase().includes(filter)));
      if (nodes.length === 0) return { output: filter === undefined ? 'No remote nodes are available.' : `No remote nodes match "${name_filter}".` };
      return { output: nodes.map((node) => `- ${node.name}${node.description ? `: ${node.description}` : ''}`).join('\n') };
    },
  });
}
