import { toRpcError } from '../errors.js';
import type { RemoteNode, RemoteNodeResolver } from '../remote-nodes/remote-node.js';
import { roleCan } from '../server/roles.js';
import type { RemoteSessionRunner } from '../remote-nodes/remote-session-client.js';
import { defineTool, permissionDenied, type Tool } from './tool.js';

export const REMOTE_AGENT = 'remote_agent';

/**
 * `remote_agent({node, message})`: runs the message as a session on a remote node and
 * returns the remote agent's answer. `node` is an enum of the eligible (token) nodes known
 * when the tool is built, listed in the description too; the model never sees a
 * credential, only names and descriptions.
 */
export function remoteAgentTool(eligible: readonly RemoteNode[], resolver: RemoteNodeResolver, runner: RemoteSessionRunner): Tool {
  const names = eligible.map((node) => node.name);
  const listing = eligible.map((node) => `- ${node.name}${node.description ? `: ${node.description}` : ''}`).join('\n');
  return defineTool<{ node: string; message: string }>({
    name: REMOTE_AGENT,
    description: `Delegates a task to an agent on a remote node and returns its final answer. Prompts the remote agent raises are rejected automatically. Available nodes:\n${listing}`,
    parameters: {
      type: 'object',
      properties: {
        node: { type: 'string', enum: names, description: 'The remote node to run the task on.' },
        message: { type: 'string', minLength: 1, description: 'The task for the remote agent, self-contained.' },
      },
      required: ['node', 'message'],
      additionalProperties: false,
    },
    async run({ node: name, message }, context) {
      if (!roleCan(context.principal.role, 'execute')) return permissionDenied(REMOTE_AGENT);
      const node = await resolver.get(name);
      if (node?.authType !== 'token') {
        return { isError: true, output: `Unknown remote node "${name}". Available nodes: ${names.join(', ') || '(none)'}` };
      }
      const audit = (fields: Record<string, unknown>): void =>
        context.audit.append({ kind: 'remote_agent_exec', agentId: context.agentId, user: context.principal.user, node: name, message_length: message.length, ...fields });
      try {
        const result = await runner(node, { message, safeMode: true, ...(context.flow ? { flow: context.flow } : {}) }, { ...(context.signal ? { signal: context.signal } : {}), logger: context.logger });
        audit({ remote_session_id: result.sessionId, outcome: 'completed' });
        return { output: result.output };
      } catch (thrown) {
        const error = toRpcError(thrown);
        audit({ remote_session_id: error.details?.sessionId ?? null, outcome: 'failed', code: error.code });
        return { isError: true, output: `remote_agent failed: ${error.message}` };
      }
    },
  });
}
