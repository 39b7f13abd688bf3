/**
 * `agent-rpc/tools`: what model agents may use — the Tool shape and the built-in tools. Each
 * export is named from the module that defines it, so the subpath loads the tools and not
 * the rest of model-agents/ (the agent loop, model clients, config schemas).
 */
export { defineTool, type Tool, type ToolContext, type ToolResult, type ToolParameters } from '../model-agents/tool.js';
export { buildAgentTools, toolPolicySchema, type AgentToolsOptions, type ToolPolicy } from '../model-agents/agent-tools.js';
export { remoteAgentTool, REMOTE_AGENT } from '../model-agents/remote-agent-tool.js';
export { listRemoteNodesTool, LIST_REMOTE_NODES } from '../model-agents/list-remote-nodes-tool.js';
export { readTool } from '../model-agents/tools/read-tool.js';
export { patchTool } from '../model-agents/tools/patch-tool.js';
export { thinkTool } from '../model-agents/tools/think-tool.js';
export { readSchemaTool, type AgentSchemaView } from '../model-agents/tools/read-schema-tool.js';
export { webSearchTool } from '../model-agents/tools/web-search-tool.js';
export { loadAgentMemory, type AgentMemory } from '../model-agents/memory.js';
export { bashTool, type BashToolOptions } from '../model-agents/bash/bash-tool.js';
export { bashPolicySchema, decideCommandLine, type BashPolicy, type BashDecision } from '../model-agents/bash/bash-policy.js';
export { parseCommandLine } from '../model-agents/bash/command-line.js';
export { scrubbedEnv } from '../model-agents/bash/scrubbed-env.js';
export { peerTool, peerToolName, PeerCatalog, type PeerCall } from '../model-agents/tools/peer-tools.js';
