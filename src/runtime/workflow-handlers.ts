import { modelAgentRunner } from '../model-agents/agent-handler.js';
import { dataDirOf, type AgentConfig } from '../config/index.js';
import type { Handler } from '../rpc/index.js';
import type { SecretMasker } from '../secrets/index.js';
import type { LoadedWorkflow } from '../workflows/index.js';
import type { RemoteNodeResolver } from '../remote-nodes/index.js';
import type { ModelAgents } from './model-agents.js';
import { workerStepRunner } from './worker-step.js';
import { workflowHandler, type AgentStepRunner, type WorkflowHandlerOptions } from './workflow-handler.js';

export interface WorkflowHandlersContext {
  readonly config: AgentConfig;
  readonly agents: ModelAgents;
  readonly masker: SecretMasker;
  /** Where `worker:` steps run; without it they fail. */
  readonly remoteNodes?: RemoteNodeResolver;
}

/** The handler of one workflow served as `capability`; its agent steps are built as `type: agent` handlers are. */
export function workflowCapability(context: WorkflowHandlersContext, capability: string, loaded: LoadedWorkflow, onRecord?: WorkflowHandlerOptions['onRecord']): Handler {
  const workflow = loaded.value;
  const runAgentStep: AgentStepRunner = async (step, given, ctx) => {
    const index = workflow.steps.findIndex((s) => s.name === step.name);
    // Model names were checked when the file loaded; this names the step again should one not resolve.
    const where = { file: loaded.file, line: loaded.lineOf(['steps', index, 'agent']), field: `steps[${index}].agent.model` };
    const options = await context.agents.optionsFor({ name: capability, description: `Step ${step.name} of workflow ${workflow.name}.` }, step.agent, step.messages, where);
    const own = step.messages.map((message) => ({ role: message.role, content: context.masker.mask(message.content) }));
    const result = await modelAgentRunner(options)([...given, ...own], ctx);
    return { text: result.text, transcript: result.transcript };
  };
  const runWorkerStep = context.remoteNodes ? workerStepRunner({ remoteNodes: context.remoteNodes, agentId: context.config.agent.value.agent.id, mask: (text) => context.masker.mask(text) }) : undefined;
  return workflowHandler({ workflow, dataDir: dataDirOf(context.config), runAgentStep, ...(runWorkerStep ? { runWorkerStep } : {}), ...(onRecord ? { onRecord } : {}) });
}

/** The handlers of agent.yaml's `type: workflow` entries, by capability. */
export function workflowHandlers(context: WorkflowHandlersContext): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  for (const [capability, loaded] of context.config.workflows) handlers.set(capability, workflowCapability(context, capability, loaded));
  return handlers;
}
