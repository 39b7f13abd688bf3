import type { HandlerContext } from '../rpc/index.js';
import type { ModelMessage } from '../model-agents/index.js';
import type { LoadedWorkflow } from './workflow-file.js';
import type { StepResult } from './run-workflow.js';
import type { AgentStep } from './workflow-schema.js';

/**
 * Runs an agent step's model agent in the flow of `ctx`, from the messages it was `given`
 * (its dependencies' transcripts) followed by its own; resolves with its final text and its
 * whole transcript, the given messages first.
 */
export type AgentStepRunner = (step: AgentStep, given: readonly ModelMessage[], ctx: HandlerContext) => Promise<{ readonly text: string; readonly transcript: readonly ModelMessage[] }>;

/** Runs an agent step with `worker:` on that worker, from the messages it was `given` (its dependencies'). */
export type WorkerStepRunner = (step: AgentStep & { readonly worker: string }, given: readonly ModelMessage[], ctx: HandlerContext) => Promise<StepResult>;

/**
 * Who runs a workflow's agent steps, offered by the handler types that can: `agentSteps` (the
 * model agents) for a workflow served as `capability`, `workerSteps` (the remote workers).
 * Without `workerSteps` a step with `worker:` fails.
 */
export interface WorkflowStepRunners {
  readonly agentSteps?: (capability: string, workflow: LoadedWorkflow) => AgentStepRunner;
  readonly workerSteps?: WorkerStepRunner;
}
