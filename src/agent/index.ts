export { defineTool, permissionDenied, type Tool, type ToolContext, type ToolParameters, type ToolResult } from './tool.js';
export { buildAgentTools, toolPolicySchema, type AgentToolsOptions, type ToolPolicy } from './agent-tools.js';
export { remoteAgentTool, REMOTE_AGENT } from './remote-agent-tool.js';
export { listRemoteNodesTool, LIST_REMOTE_NODES } from './list-remote-nodes-tool.js';
