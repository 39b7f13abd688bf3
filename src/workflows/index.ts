/** Workflows: DAGs of steps, their files, runs and records; `handler-type/` serves one as a capability (`type: workflow`). Docs: docs/workflows.md. */
export { loadWorkflowFile, parseWorkflow, type LoadedWorkflow, type WorkflowLoadOptions } from './workflow-file.js';
export {
  workflowSchema,
  workflowStepSchema,
  agentStepSchema,
  callStepSchema,
  WORKFLOW_NAME_RE,
  type Workflow,
  type WorkflowStep,
  type AgentStep,
  type CallStep,
  MAX_STEP_TIMEOUT_MS,
} from './workflow-schema.js';
export { checkWorkflow, substitutedStrings, type WorkflowCheckOptions, type WorkflowProblem } from './check-workflow.js';
export { findCycle, runOrder, ancestorsOf, type GraphStep } from './workflow-graph.js';
export { substitute, substituteJson, referencesIn, variableText, OUTPUT_NAME_RE, PARAM_NAME_RE, type Variables } from './substitute.js';
export { runWorkflow, StepFailure, type RunWorkflowOptions, type RunStep, type RunStepContext, type StepResult, type WorkflowEvent } from './run-workflow.js';
export { writeRunRecord, runRecordPath, RUN_STATUSES, STEP_STATUSES, type RunStatus, type StepStatus, type StepRecord, type StepError, type WorkflowRunRecord } from './run-record.js';
export { workflowHandler, type WorkflowHandlerOptions } from './workflow-handler.js';
export type { AgentStepRunner, WorkerStepRunner, WorkflowStepRunners } from './step-runners.js';
