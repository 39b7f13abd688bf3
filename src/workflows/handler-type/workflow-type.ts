import { HANDLER_SECTIONS, type AgentConfig, type HandlerSection, type HandlerType } from '../../config/index.js';
import type { Handler } from '../../rpc/index.js';
import type { LoadedWorkflow } from '../index.js';
import { loadWorkflowHandlers } from './load-agent-workflow.js';
import { workflowCapability } from './workflow-capability.js';
import { workflowHandlerSchema } from './workflow-entry.js';

// The workflow files checked with each agent's files, kept for its handlers: loaded once, as they were checked.
const loadedWith = new WeakMap<AgentConfig, ReadonlyMap<HandlerSection, ReadonlyMap<string, LoadedWorkflow>>>();

/** `type: workflow`: a capability that runs the steps of a workflow file (docs/workflows.md), each loaded and checked with the agent's files. */
export const workflowHandlerType: HandlerType = {
  name: 'workflow',
  entrySchema: workflowHandlerSchema,
  async check(config, env) {
    const sections = new Map<HandlerSection, ReadonlyMap<string, LoadedWorkflow>>();
    for (const section of HANDLER_SECTIONS) sections.set(section, await loadWorkflowHandlers(config.agent, env, section));
    loadedWith.set(config, sections);
  },
  async handlers(context) {
    const { config, section, env } = context;
    const workflows = loadedWith.get(config)?.get(section) ?? (await loadWorkflowHandlers(config.agent, env, section));
    const handlers = new Map<string, Handler>();
    for (const [capability, loaded] of workflows) handlers.set(capability, workflowCapability(context, capability, loaded));
    return handlers;
  },
};
