/** `agent-rpc/models`: model agents in code — provider clients, the tool loop, and a model agent as a handler. */
export { createModelClient, costUsd, modelsConfigSchema, resolveModelId, type ModelClient, type ModelClientOptions, type ModelConfig, type ModelMessage, type ModelReply, type ModelRequest, type ModelTool, type ModelToolCall, type ModelUsage, type Pricing } from '../model-agents/models/index.js';
export { runAgentLoop, type AgentLoopOptions, type AgentLoopResult } from '../model-agents/agent-loop.js';
export { agentHandler, type AgentHandlerOptions, type AgentHandlerSpec, type ToolsetFactory } from '../model-agents/agent-handler.js';
export { outputCheck, type OutputCheck } from '../model-agents/output-check.js';
export { SecretMasker } from '../secrets/secret-masker.js';
