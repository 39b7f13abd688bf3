import { toRpcError } from '../errors.js';
import type { RemoteNode, RemoteNodeResolver, RemoteSessionRunner } from '../remote-nodes/index.js';
import { roleCan } from '../auth/roles.js';
import { defineTool, permissionDenied, type Tool, type ToolParameters } from './tool.js';

export const REMOTE_AGENT = 'remote_agent';

/** The nodes remote_agent can reach: token nodes (a remote session needs a bearer token). */
export async function eligibleRemoteNodes(resolver: RemoteNodeResolver): Promise<RemoteNode[]> {
  return (await resolver.list()).filter((node) => node.authType === 'token');
}

const parametersOf = (names?: readonly string[]): ToolParameters => ({
  type: 'object',
  properties: {
    node: { type: 'string', ...(names ? { enum: names } : {}), description: 'The remote node to run the task on.' },
    message: { type: 'string', minLength: 1, description: 'The task for the remote agent, self-contained.' },
  },
  required: ['node', 'message'],
  additionalProperties: false,
});

/**
 * `remote_agent({node, message})`: runs the message as a session on a remote node and
 * returns the remote agent's answer. `node` is offered as an enum of the eligible (token)
 * nodes known when the tool is built, listed in the description too; the model never sees
 * a credential, only names and descriptions. The enum is what the model reads, not what
 * the tool checks: the name is looked up when the tool runs, so an unknown name is answered
 * with the nodes available then (the store may have changed since), not a bare schema error.
 */
export function remoteAgentTool(eligible: readonly RemoteNode[], resolver: RemoteNodeResolver, runner: RemoteSessionRunner): Tool {
  const listing = eligible.map((node) => `- ${node.name}${node.description ? `: ${node.description}` : ''}`).join('\n');
  const tool = defineTool<{ node: string; message: string }>({
    name: REMOTE_AGENT,
    description: `Delegates a task to an agent on a remote node and returns its final answer. Prompts the remote agent raises are rejected automatically. Available nodes:\n${listing}`,
    parameters: parametersOf(),
    async run({ node: name, message }, context) {
      if (!roleCan(context.principal.role, 'execute')) return permissionDenied(REMOTE_AGENT);
      const node = await resolver.get(name);
      if (node?.authType !== 'token') {
        const available = (await eligibleRemoteNodes(resolver)).map((candidate) => candidate.name);
        return { isError: true, output: `Unknown remote node "${name}". Available nodes: ${available.join(', ') || '(none)'}` };
      }
      const audit = (fields: Record<string, unknown>): void =>
        context.audit.append({ kind: 'remote_agent_exec', agentId: context.agentId, user: context.principal.user, node: name, message_length: message.length, ...fields });
      try {
        const result = await runner(node, { message, safeMode: true, ...(context.flow ? { flow: context.flow } : {}) }, { ...(context.signal ? { signal: context.signal } : {}), logger: context.logger });
        audit({ remote_session_id: result.sessionId, outcome: 'completed' });
        return { output: result.output };
      } catch (thrown) {
        const error = toRpcError(thrown);
        // The remote side's own code (a guard refusal, the handler's error) is the cause the model and its caller need.
        const remoteCode = typeof error.details?.remoteCode === 'string' ? error.details.remoteCode : undefined;
        audit({ remote_session_id: error.details?.sessionId ?? null, outcome: 'failed', code: error.code, ...(remoteCode ? { remote_code: remoteCode } : {}) });
        return { isError: true, output: `remote_agent failed: [${remoteCode ?? error.code}] ${error.message}` };
      }
    },
  });
  return { ...tool, parameters: parametersOf(eligible.map((node) => node.name)) };
}
