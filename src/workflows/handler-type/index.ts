/** Workflows as a handler type of agent.yaml (`type: workflow`), and a workflow file read for an agent (`agent-rpc run`). */
export { loadAgentWorkflow, type AgentWorkflowOptions } from './load-agent-workflow.js';
export { workflowCapability } from './workflow-capability.js';
export { workflowHandlerSchema, type WorkflowHandlerConfig } from './workflow-entry.js';
export { workflowHandlerType } from './workflow-type.js';
