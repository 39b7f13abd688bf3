/** Model agents as a handler type of agent.yaml: `type: agent` entries, `models:` and `tools:`, and the agent steps of workflows. */
export { modelAgentHandlerType } from './model-agent-type.js';
export { modelsOf } from './model-agents.js';
