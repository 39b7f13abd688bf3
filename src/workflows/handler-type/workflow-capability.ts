import { dataDirOf, type HandlerTypeContext } from '../../config/index.js';
import { RpcError } from '../../errors.js';
import type { Handler } from '../../rpc/index.js';
import { workflowHandler, type AgentStepRunner, type WorkflowHandlerOptions, type LoadedWorkflow } from '../index.js';

/**
 * The handler of one workflow served as `capability`: its agent steps run as the handler
 * types that offer them run them (model agents here, remote workers for `worker:` steps).
 */
export function workflowCapability(context: HandlerTypeContext, capability: string, loaded: LoadedWorkflow, onRecord?: WorkflowHandlerOptions['onRecord']): Handler {
  const { agentSteps, workerSteps } = context.services;
  const runAgentStep = agentSteps?.(capability, loaded) ?? noModelAgents;
  return workflowHandler({
    workflow: loaded.value,
    dataDir: dataDirOf(context.config),
    runAgentStep,
    ...(workerSteps ? { runWorkerStep: workerSteps } : {}),
    ...(onRecord ? { onRecord } : {}),
  });
}

// Only without the model agent handler type, whose `models:` a workflow's agent steps need to load at all.
const noModelAgents: AgentStepRunner = (step) => Promise.reject(new RpcError('EAGENTRPC_HANDLER_FAILED', `step ${step.name}: this agent runs no model agents`));
