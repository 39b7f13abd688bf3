import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import { roleCan } from '../auth/roles.js';
import { eligibleRemoteNodes } from './remote-agent-tool.js';
import { defineTool, permissionDenied, type Tool } from './tool.js';

export const LIST_REMOTE_NODES = 'list_remote_nodes';

/**
 * `list_remote_nodes({name_filter?})`: the nodes `remote_agent` can reach (token nodes),
 * from the resolver — no network call, no credential. The answer is a JSON array of
 * `{name, description}` objects (RFC 027), `[]` when none matches.
 */
export function listRemoteNodesTool(resolver: RemoteNodeResolver): Tool {
  return defineTool<{ name_filter?: string }>({
    name: LIST_REMOTE_NODES,
    description: 'Lists the remote agent nodes this agent can delegate to with remote_agent, as a JSON array of {name, description}. Optionally filters by a case-insensitive substring of the name.',
    parameters: {
      type: 'object',
      properties: { name_filter: { type: 'string', description: 'Only nodes whose name contains this text (case-insensitive).' } },
      additionalProperties: false,
    },
    async run({ name_filter }, context) {
      if (!roleCan(context.principal.role, 'execute')) return permissionDenied(LIST_REMOTE_NODES);
      context.audit.append({ kind: 'remote_nodes_list', agentId: context.agentId, user: context.principal.user, name_filter: name_filter ?? null });
      const filter = name_filter?.toLowerCase();
      const nodes = (await eligibleRemoteNodes(resolver)).filter((node) => filter === undefined || node.name.toLowerCase().includes(filter));
      return { output: JSON.stringify(nodes.map((node) => ({ name: node.name, description: node.description }))) };
    },
  });
}
