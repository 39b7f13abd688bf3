import { z } from 'zod';
import type { RemoteNodeResolver, RemoteSessionRunner } from '../remote-nodes/index.js';
import { listRemoteNodesTool, LIST_REMOTE_NODES } from './list-remote-nodes-tool.js';
import { eligibleRemoteNodes, remoteAgentTool, REMOTE_AGENT } from './remote-agent-tool.js';
import type { Tool } from './tool.js';

/** agent.yaml `tools.policy`: tool name → enabled. Tools that reach other nodes are off unless turned on. */
export const toolPolicySchema = z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a tool name'), z.boolean());
export type ToolPolicy = z.infer<typeof toolPolicySchema>;

export interface AgentToolsOptions {
  readonly policy: ToolPolicy;
  readonly resolver: RemoteNodeResolver;
  /** Default: runRemoteSession (transports/http). */
  readonly runner?: RemoteSessionRunner;
  /** A delegated sub-agent's tool set: never gets the tools that reach other nodes. */
  readonly delegated: boolean;
}

/**
 * The tools an agent loop may offer the model. `remote_agent` and `list_remote_nodes`
 * appear only when the policy turns them on, the set is not a delegated sub-agent's, and
 * at least one `token` node exists (only those are usable: the remote token's role decides
 * what the call may do there).
 */
export async function buildAgentTools(options: AgentToolsOptions): Promise<Tool[]> {
  const tools: Tool[] = [];
  if (options.delegated) return tools;
  const wanted = (name: string): boolean => options.policy[name] === true;
  if (!wanted(REMOTE_AGENT) && !wanted(LIST_REMOTE_NODES)) return tools;
  const eligible = await eligibleRemoteNodes(options.resolver);
  if (eligible.length === 0) return tools;
  if (wanted(REMOTE_AGENT)) {
    const runner = options.runner ?? (await import('../remote-nodes/remote-session-client.js')).runRemoteSession;
    tools.push(remoteAgentTool(eligible, options.resolver, runner));
  }
  if (wanted(LIST_REMOTE_NODES)) tools.push(listRemoteNodesTool(options.resolver));
  return tools;
}
