import { HANDLER_SECTIONS, handlerEntriesOf, type AgentConfig, type HandlerType, type HandlerTypeBase } from '../../config/index.js';
import type { AgentNode } from '../../rpc/agent-node.js';
import { ConfigError } from '../../yaml/index.js';
import { agentHandlerSchema, modelAgentSections, resolveModelId } from '../index.js';
import { agentStepsOf, modelAgentHandlers, modelsOf, ModelAgents } from './model-agents.js';

/**
 * `type: agent`: a capability answered by a model in a tool loop (docs/agents.md). It owns
 * agent.yaml's `models:` and `tools:`, and runs workflows' agent steps for the workflow type.
 */
export const modelAgentHandlerType: HandlerType = {
  name: 'agent',
  configShape: modelAgentSections,
  entrySchema: agentHandlerSchema,
  check: checkModels,
  services: (context) => ({ agentSteps: agentStepsOf(modelAgentsOf(context)) }),
  handlers: (context) => modelAgentHandlers(modelAgentsOf(context), context.section),
};

// One ModelAgents per node, so its handlers and the workflows' agent steps share one client per model.
const shared = new WeakMap<AgentNode, ModelAgents>();

function modelAgentsOf(context: HandlerTypeBase): ModelAgents {
  let agents = shared.get(context.node);
  if (!agents) shared.set(context.node, (agents = new ModelAgents(context)));
  return agents;
}

/** A model agent's model must resolve when the files load, never at its first call. */
function checkModels(config: AgentConfig): void {
  const { agent } = config;
  for (const section of HANDLER_SECTIONS) {
    for (const [capability, entry] of handlerEntriesOf(config, 'agent', agentHandlerSchema, section)) {
      const model = entry.agent.model;
      const resolved = resolveModelId(model, modelsOf(config));
      if (resolved.ok) continue;
      const path = model === undefined ? [section, capability] : [section, capability, 'agent', 'model'];
      throw new ConfigError(agent.file, agent.lineOf(path), path.join('.'), resolved.problem);
    }
  }
}
