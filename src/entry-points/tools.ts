/** `agent-rpc/tools`: what model agents may use — the Tool shape and the built-in tools. */
export {
  defineTool,
  buildAgentTools,
  remoteAgentTool,
  listRemoteNodesTool,
  toolPolicySchema,
  REMOTE_AGENT,
  LIST_REMOTE_NODES,
  type AgentToolsOptions,
  type Tool,
  type ToolContext,
  type ToolResult,
  type ToolParameters,
  type ToolPolicy,
} from '../agent/index.js';
