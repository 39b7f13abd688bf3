import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { handlerEntriesOf, sectionOf, type AgentFile, type HandlerSection } from '../../config/index.js';
import { modelsSectionSchema, resolveModelId } from '../../model-agents/index.js';
import { ConfigError, type LoadedYaml } from '../../yaml/index.js';
import { loadWorkflowFile, type LoadedWorkflow } from '../index.js';
import { workflowHandlerSchema } from './workflow-entry.js';

export interface AgentWorkflowOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Names of params the run is given besides the file's own (`agent-rpc run --param`). */
  readonly params?: readonly string[];
}

/**
 * Reads a workflow file for an agent and checks it against that agent's config: its local agent
 * steps' models must be in `models:` and its `worker:` names in `remoteNodes`. Every
 * mistake is a ConfigError naming the workflow file, the line and the field.
 */
export async function loadAgentWorkflow(agent: LoadedYaml<AgentFile>, file: string, options: AgentWorkflowOptions = {}): Promise<LoadedWorkflow> {
  const workers = (agent.value.remoteNodes ?? []).map((node) => node.name);
  const loaded = await loadWorkflowFile(file, { workers, ...(options.env ? { env: options.env } : {}), ...(options.params ? { params: options.params } : {}) });
  for (const [index, step] of loaded.value.steps.entries()) {
    // A worker step's agent block is not used here: the worker's agent has its own model.
    if (step.type !== 'agent' || step.worker !== undefined) continue;
    const resolved = resolveModelId(step.agent.model, sectionOf({ agent }, 'models', modelsSectionSchema) ?? []);
    if (resolved.ok) continue;
    const path = step.agent.model === undefined ? ['steps', index, 'agent'] : ['steps', index, 'agent', 'model'];
    throw new ConfigError(loaded.file, loaded.lineOf(path), `steps[${index}].${path.slice(2).join('.')}`, resolved.problem);
  }
  return loaded;
}

/** The workflows agent.yaml runs for a section's capabilities (`type: workflow`), loaded and checked, by capability. */
export async function loadWorkflowHandlers(agent: LoadedYaml<AgentFile>, env: NodeJS.ProcessEnv, section: HandlerSection): Promise<Map<string, LoadedWorkflow>> {
  const workflows = new Map<string, LoadedWorkflow>();
  for (const [capability, entry] of handlerEntriesOf({ agent }, 'workflow', workflowHandlerSchema, section)) {
    const file = isAbsolute(entry.file) ? entry.file : resolve(dirname(agent.file), entry.file);
    // A missing file is agent.yaml's mistake: point at the line that names it.
    if (!existsSync(file)) throw new ConfigError(agent.file, agent.lineOf([section, capability, 'file']), `${section}.${capability}.file`, `${file} does not exist`);
    workflows.set(capability, await loadAgentWorkflow(agent, file, { env }));
  }
  return workflows;
}
