/** `agent-rpc/tools`: what model agents may use — the Tool shape and the built-in tools. */
export {
  defineTool,
  buildAgentTools,
  remoteAgentTool,
  listRemoteNodesTool,
  toolPolicySchema,
  REMOTE_AGENT,
  LIST_REMOTE_NODES,
  readTool,
  patchTool,
  thinkTool,
  readSchemaTool,
  webSearchTool,
  loadAgentMemory,
  type AgentToolsOptions,
  type AgentMemory,
  type AgentSchemaView,
  type Tool,
  type ToolContext,
  type ToolResult,
  type ToolParameters,
  type ToolPolicy,
} from '../model-agents/index.js';
export { bashTool, bashPolicySchema, decideCommandLine, parseCommandLine, scrubbedEnv, type BashPolicy, type BashDecision, type BashToolOptions } from '../model-agents/bash/index.js';
export { peerTool, peerToolName, PeerCatalog, type PeerCall } from '../model-agents/tools/peer-tools.js';
